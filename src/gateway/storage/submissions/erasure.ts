import { and, inArray, isNotNull, lt } from "drizzle-orm";
import { mappingFailures, submissions } from "../../../db/schema/index.js";
import { idFloor } from "../../../ids.js";
import type { StorageHandles } from "../handles.js";
import type { ScanBy, ScannedSubmission } from "./port.js";

/** Rows of a company scanned per step of an erasure (one transaction, then the event loop's turn). */
export const ERASURE_CHUNK = 2_000;

const SCANS: Record<ScanBy, string> = {
  contact: `SELECT id, status, result, contact_email AS email, contact_phone AS phone, NULL AS leadRef
    FROM submissions WHERE company_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  leadReference: `SELECT id, status, result, NULL AS email, NULL AS phone,
      json_extract(canonical_body, '$.leadId') AS leadRef
    FROM submissions WHERE company_id = ? AND id < ? AND kind = 'appointment' ORDER BY id DESC LIMIT ?`,
};

/**
 * One step of a pass over a company's submissions, newest first below `before`: ERASURE_CHUNK rows, in the caller's
 * immediate transaction, the event loop's turn between steps (a large company never holds the thread serving
 * intake). The rows `match` accepts lose their payloads, and what was not sent yet is failed ("erased at the owner's
 * request"): its id is in `failed`, for the caller to record its outcome in the same transaction, as forwarding
 * records it. The contact columns stay (forgetContacts): a rerun after a crash finds the person's submissions by them.
 */
export function eraseStep(
  { sqlite }: StorageHandles,
  companyId: string,
  by: ScanBy,
  before: string,
  nowMs: number,
  match: (row: ScannedSubmission) => boolean,
): { erased: string[]; failed: string[]; last: string | undefined } {
  const now = new Date(nowMs).toISOString();
  const rows = sqlite
    .prepare<[string, string, number], ScannedSubmission>(SCANS[by])
    .all(companyId, before, ERASURE_CHUNK);
  const erase = sqlite.prepare(
    "UPDATE submissions SET raw_payload = NULL, canonical_body = NULL, purged_at = ?, updated_at = ? WHERE id = ?",
  );
  const fail = sqlite.prepare(
    `UPDATE submissions SET status = 'failed', last_error = 'erased at the owner''s request', next_attempt_at = NULL,
       waiting_reason = NULL, lease_until = NULL WHERE id = ?`,
  );
  const erased: string[] = [];
  const failed: string[] = [];
  for (const row of rows.filter(match)) {
    erase.run(now, now, row.id);
    erased.push(row.id);
    if (row.status === "forwarded" || row.status === "failed") continue;
    // Nothing is left to send: it ends here, and its vendor hears so as of any failure (§1).
    fail.run(row.id);
    failed.push(row.id);
  }
  return { erased, failed, last: rows.length < ERASURE_CHUNK ? undefined : rows.at(-1)?.id };
}

/** The last step of an erasure: the person's submissions forget their contact, and are found by it no more. */
export function forgetContacts({ sqlite }: StorageHandles, submissionIds: readonly string[]): void {
  const forget = sqlite.prepare("UPDATE submissions SET contact_email = NULL, contact_phone = NULL WHERE id = ?");
  for (let i = 0; i < submissionIds.length; i += ERASURE_CHUNK) {
    const chunk = submissionIds.slice(i, i + ERASURE_CHUNK);
    sqlite.transaction(() => {
      for (const id of chunk) forget.run(id);
    })();
  }
}

/**
 * Drops the native payload of a company's mapping failures that `mentions` accepts: no profile produced a body there,
 * so there is no contact column to compare, only the text as received. Scanned newest first on the (company, id)
 * index, a chunk per transaction.
 */
export async function eraseMappingFailures(
  { sqlite, gate }: StorageHandles,
  companyId: string,
  mentions: (text: string) => boolean,
): Promise<number> {
  const select = sqlite.prepare<[string, string, number], { id: string; rawPayload: string | null }>(
    `SELECT id, raw_payload AS rawPayload FROM mapping_failures WHERE company_id = ? AND id < ?
     ORDER BY id DESC LIMIT ?`,
  );
  const erase = sqlite.prepare("UPDATE mapping_failures SET raw_payload = NULL WHERE id = ?");
  let erased = 0;
  let before = "\uffff";
  for (;;) {
    while (gate.busy) await gate.pass();
    const step = sqlite
      .transaction(() => {
        const rows = select.all(companyId, before, ERASURE_CHUNK);
        for (const row of rows) {
          if (row.rawPayload === null || !mentions(row.rawPayload)) continue;
          erase.run(row.id);
          erased++;
        }
        return { scanned: rows.length, last: rows.at(-1)?.id };
      })
      .immediate();
    if (step.scanned < ERASURE_CHUNK || step.last === undefined) return erased;
    before = step.last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Drops raw payloads accepted before `cutoffMs`. Only finished submissions are purged: a queued one still needs its
 * payload for a redrive with another profile version. Mapping failures of the same age lose theirs too.
 */
export function purgePayloadsBefore({ db }: StorageHandles, cutoffMs: number, nowIso: string): number {
  const purged = db
    .update(submissions)
    .set({ rawPayload: null, purgedAt: nowIso })
    .where(
      and(
        // Ids are time-ordered and made with createdAt's clock reading: a range on the primary key, so intake's
        // inserts need no created_at index.
        lt(submissions.id, idFloor("sub", cutoffMs)),
        isNotNull(submissions.rawPayload),
        inArray(submissions.status, ["forwarded", "failed"]),
      ),
    )
    .run().changes;
  db.update(mappingFailures)
    .set({ rawPayload: null })
    .where(and(lt(mappingFailures.createdAt, new Date(cutoffMs).toISOString()), isNotNull(mappingFailures.rawPayload)))
    .run();
  return purged;
}
