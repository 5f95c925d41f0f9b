import { idFloor } from "../../../../ids.js";
import type { PgHandles } from "../../pg-handles.js";
import type { PurgedWebhookHistory } from "../retention.js";

/** Rows deleted per statement: each chunk is its own short transaction on the pool (as ../retention.ts). */
const CHUNK = 1_000;

/**
 * The retention purge of the webhook tables on PostgreSQL, what SQLite's purgeWebhookHistory (../retention.ts) does,
 * chunk by chunk. A delivery a redelivery made pending again while the purge runs is not deleted: the status is
 * checked again on the row the DELETE locks (the outer WHERE), not only in the chunk's snapshot.
 */
export async function purgeWebhookHistory(
  { client }: PgHandles,
  cutoffMs: number,
  companyIds: readonly string[],
): Promise<PurgedWebhookHistory> {
  const cutoffIso = new Date(cutoffMs).toISOString();
  const beforeCutoff = idFloor("whd", cutoffMs);
  const deleted = async (text: string, values: unknown[]) => (await client.query(text, values)).rowCount ?? 0;
  const webhookDeliveries = await inChunks(() =>
    deleted(
      `DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND id IN (
         SELECT id FROM webhook_deliveries WHERE id < $1 AND status IN ('delivered', 'failed') LIMIT ${CHUNK})`,
      [beforeCutoff],
    ),
  );
  // What is left before the cutoff is unfinished: the events those deliveries still send are kept.
  const webhookEvents = await inChunks(() =>
    deleted(
      `DELETE FROM webhook_events WHERE id IN (
         SELECT e.id FROM webhook_events e WHERE e.created_at < $1
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id < $2 AND d.event_id = e.id) LIMIT ${CHUNK})`,
      [cutoffIso, beforeCutoff],
    ),
  );
  // Per company, on the (company_id, received_at) index; the companies are the tenants' record's to list.
  let platformEvents = 0;
  for (const companyId of companyIds) {
    platformEvents += await inChunks(() =>
      deleted(
        `DELETE FROM platform_events WHERE company_id = $1 AND id IN (
           SELECT id FROM platform_events WHERE company_id = $1 AND received_at < $2 LIMIT ${CHUNK})`,
        [companyId, cutoffIso],
      ),
    );
  }
  return { webhookDeliveries, webhookEvents, platformEvents };
}

async function inChunks(deleteChunk: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteChunk();
    total += deleted;
    if (deleted < CHUNK) return total;
  }
}

/**
 * After an erasure has committed: VACUUM of the webhook tables an erasure rewrites or deletes from (envelopes,
 * deliveries, attempts, platform events' bodies), so no dead row version keeps the erased copies (D-241, D-257). As
 * the submissions store's: outside any transaction, on a connection of its own without the statement timeout.
 */
export async function compactAfterErasure(handles: PgHandles): Promise<boolean> {
  if (handles.inTransaction) throw new Error("compactAfterErasure runs after the erasure's transaction has committed");
  const client = await handles.pool.connect();
  let broken = false;
  try {
    await client.query("SET statement_timeout = 0");
    await client.query("VACUUM webhook_events, webhook_deliveries, webhook_attempts, platform_events");
    return true;
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    await client.query("RESET statement_timeout").catch(() => {
      broken = true;
    });
    client.release(broken);
  }
}
