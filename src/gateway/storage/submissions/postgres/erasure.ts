import { idFloor } from "../../../../ids.js";
import { type PgHandles, pgTransaction } from "../../pg-handles.js";
import { ERASURE_CHUNK } from "../erasure.js";
import type { ScanBy, ScannedSubmission } from "../port.js";

// Retention and erasure on PostgreSQL: the statements of ../erasure.ts, chunked alike (D-241).

const SCANS: Record<ScanBy, string> = {
  contact: `SELECT id, status, result::text AS result, contact_email AS email, contact_phone AS phone,
      NULL::text AS "leadRef"
    FROM submissions WHERE company_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
  leadReference: `SELECT id, status, result::text AS result, NULL::text AS email, NULL::text AS phone,
      canonical_body->>'leadId' AS "leadRef"
    FROM submissions WHERE company_id = $1 AND id < $2 AND kind = 'appointment' ORDER BY id DESC LIMIT $3`,
};

/**
 * One step of a pass over a company's submissions, newest first below `before` (../erasure.ts): ERASURE_CHUNK rows in
 * one transaction (the caller's, or one of its own). The rows `match` accepts lose their payloads; of those, the ones
 * not settled when the UPDATE reaches them are failed — the condition is in the UPDATE, so a row another process
 * settles meanwhile is not failed over its outcome (SQLite's single writer gave the same by excluding it).
 */
export function eraseStep(
  handles: PgHandles,
  companyId: string,
  by: ScanBy,
  before: string,
  nowMs: number,
  match: (row: ScannedSubmission) => boolean,
): Promise<{ erased: string[]; failed: string[]; last: string | undefined }> {
  const now = new Date(nowMs).toISOString();
  return pgTransaction(handles, async ({ client }) => {
    const { rows } = await client.query<ScannedSubmission>(SCANS[by], [companyId, before, ERASURE_CHUNK]);
    const erased = rows.filter(match).map((row) => row.id);
    let failed: string[] = [];
    if (erased.length > 0) {
      await client.query(
        `UPDATE submissions SET raw_payload = NULL, canonical_body = NULL, purged_at = $2, updated_at = $2
         WHERE id = ANY($1::text[])`,
        [erased, now],
      );
      // Nothing is left to send: it ends here, and its vendor hears so as of any failure (§1).
      const result = await client.query<{ id: string }>(
        `UPDATE submissions SET status = 'failed', last_error = 'erased at the owner''s request',
           next_attempt_at = NULL, waiting_reason = NULL, lease_until = NULL
         WHERE id = ANY($1::text[]) AND status NOT IN ('forwarded', 'failed') RETURNING id`,
        [erased],
      );
      const done = new Set(result.rows.map((r) => r.id));
      failed = erased.filter((id) => done.has(id));
    }
    return { erased, failed, last: rows.length < ERASURE_CHUNK ? undefined : rows.at(-1)?.id };
  });
}

/** The last step of an erasure: the person's submissions forget their contact, a chunk per statement. */
export async function forgetContacts({ client }: PgHandles, submissionIds: readonly string[]): Promise<void> {
  for (let i = 0; i < submissionIds.length; i += ERASURE_CHUNK) {
    await client.query("UPDATE submissions SET contact_email = NULL, contact_phone = NULL WHERE id = ANY($1::text[])", [
      submissionIds.slice(i, i + ERASURE_CHUNK),
    ]);
  }
}

/**
 * Drops the native payload of a company's mapping failures that `mentions` accepts, newest first on the (company, id)
 * index, a chunk per statement pair, the event loop's turn between chunks. The UPDATE names the ids it read: only
 * retention writes those rows otherwise, and it only nulls the same column.
 */
export async function eraseMappingFailures(
  { client }: PgHandles,
  companyId: string,
  mentions: (text: string) => boolean,
): Promise<number> {
  let erased = 0;
  let before: string | null = null;
  for (;;) {
    const { rows }: { rows: { id: string; rawPayload: string | null }[] } = await client.query(
      `SELECT id, raw_payload AS "rawPayload" FROM mapping_failures
       WHERE company_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [companyId, before, ERASURE_CHUNK],
    );
    const ids = rows.filter((row) => row.rawPayload !== null && mentions(row.rawPayload)).map((row) => row.id);
    if (ids.length > 0) {
      const result = await client.query("UPDATE mapping_failures SET raw_payload = NULL WHERE id = ANY($1::text[])", [
        ids,
      ]);
      erased += result.rowCount ?? 0;
    }
    const last: string | undefined = rows.at(-1)?.id;
    if (rows.length < ERASURE_CHUNK || last === undefined) return erased;
    before = last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Drops raw payloads accepted before `cutoffMs` of finished submissions (a range on the time-ordered primary key), and
 * those of mapping failures of the same age, in one transaction.
 */
export function purgePayloadsBefore(handles: PgHandles, cutoffMs: number, nowIso: string): Promise<number> {
  return pgTransaction(handles, async ({ client }) => {
    const purged = await client.query(
      `UPDATE submissions SET raw_payload = NULL, purged_at = $2
       WHERE id < $1 AND raw_payload IS NOT NULL AND status IN ('forwarded', 'failed')`,
      [idFloor("sub", cutoffMs), nowIso],
    );
    await client.query(
      "UPDATE mapping_failures SET raw_payload = NULL WHERE created_at < $1 AND raw_payload IS NOT NULL",
      [new Date(cutoffMs).toISOString()],
    );
    return purged.rowCount ?? 0;
  });
}

/**
 * After an erasure (or a purge) has committed: VACUUM of this record's tables, so no row version — the dead ones the
 * UPDATEs left behind included, and their TOASTed payloads — holds the erased data any more (D-241). VACUUM cannot run
 * in a transaction block: it runs on a connection of its own, without the pool's statement timeout (a large table
 * takes long; it blocks no reader or writer, only another VACUUM or DDL of the table).
 */
export async function compactAfterErasure(handles: PgHandles): Promise<boolean> {
  if (handles.inTransaction) throw new Error("compactAfterErasure runs after the erasure's transaction has committed");
  const client = await handles.pool.connect();
  let broken = false;
  try {
    await client.query("SET statement_timeout = 0");
    await client.query("VACUUM submissions, mapping_failures");
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
