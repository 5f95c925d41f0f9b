import { idFloor } from "../../../ids.js";
import type { StoreSql } from "../sql/store-sql.js";
import type { PurgedWebhookHistory } from "./row.js";

/** Rows deleted per statement: each chunk is its own short transaction, so a large purge never holds the writer. */
const CHUNK = 1_000;

/**
 * The retention purge of the webhook tables for what was created before `cutoffMs`: finished deliveries with their
 * attempts (pending ones stay: a disabled subscription's backlog resumes when re-enabled), the events none of whose
 * deliveries remains, and the platform events received (a redelivery that old fails §6.3.2 before §6.6). Deliveries
 * are found by id, which carries its creation time (src/ids.ts): no index is written per delivery for this.
 */
export async function purgeWebhookHistory(
  sql: StoreSql,
  cutoffMs: number,
  companyIds: readonly string[],
): Promise<PurgedWebhookHistory> {
  const { db } = sql;
  const cutoffIso = new Date(cutoffMs).toISOString();
  const beforeCutoff = idFloor("whd", cutoffMs);
  const finished = ["delivered", "failed"] as const;
  const webhookDeliveries = await inChunks(() =>
    db
      .deleteFrom("webhookDeliveries")
      // Checked again on the locked row, not only in the chunk's snapshot: a redelivery may make it pending (D-245).
      .where("status", "in", finished)
      .where("id", "in", (eb) =>
        eb
          .selectFrom("webhookDeliveries")
          .select("id")
          .where("id", "<", beforeCutoff)
          .where("status", "in", finished)
          .limit(CHUNK),
      )
      .executeTakeFirst(),
  );
  // What is left before the cutoff is unfinished: the events those deliveries still send are kept.
  const webhookEvents = await inChunks(() =>
    db
      .deleteFrom("webhookEvents")
      .where("id", "in", (eb) =>
        eb
          .selectFrom("webhookEvents as e")
          .select("e.id")
          .where("e.createdAt", "<", cutoffIso)
          .where((inner) =>
            // The same condition, each dialect's way: SQLite reads the subquery once into a temporary index (a
            // correlated NOT EXISTS would scan the deliveries per event: no index on event_id, D-081); PostgreSQL
            // anti-joins NOT EXISTS by hash, where a NOT IN list too large for work_mem is re-read per event.
            sql.dialect === "postgres"
              ? inner.not(
                  inner.exists(
                    inner
                      .selectFrom("webhookDeliveries as d")
                      .select("d.id")
                      .where("d.id", "<", beforeCutoff)
                      .whereRef("d.eventId", "=", "e.id"),
                  ),
                )
              : inner(
                  "e.id",
                  "not in",
                  inner.selectFrom("webhookDeliveries as d").select("d.eventId").where("d.id", "<", beforeCutoff),
                ),
          )
          .limit(CHUNK),
      )
      .executeTakeFirst(),
  );
  // Per company, on the (company_id, received_at) index; the companies are the tenants' record's to list.
  let platformEvents = 0;
  for (const companyId of companyIds) {
    platformEvents += await inChunks(() =>
      db
        .deleteFrom("platformEvents")
        .where("companyId", "=", companyId)
        .where("id", "in", (eb) =>
          eb
            .selectFrom("platformEvents")
            .select("id")
            .where("companyId", "=", companyId)
            .where("receivedAt", "<", cutoffIso)
            .limit(CHUNK),
        )
        .executeTakeFirst(),
    );
  }
  return { webhookDeliveries, webhookEvents, platformEvents };
}

async function inChunks(deleteChunk: () => Promise<{ numDeletedRows: bigint }>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = Number((await deleteChunk()).numDeletedRows);
    total += deleted;
    if (deleted < CHUNK) return total;
  }
}
