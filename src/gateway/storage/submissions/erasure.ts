import { and, inArray, isNotNull, lt } from "drizzle-orm";
import { mappingFailures, submissions } from "../../../db/schema/index.js";
import { idFloor } from "../../../ids.js";
import type { StorageHandles } from "../handles.js";
import type { SubmissionRow } from "./row.js";

/** Rows of a company scanned per step of an erasure (one transaction, then the event loop's turn). */
export const ERASURE_CHUNK = 2_000;

/** What an erasure's scan reads of a submission. */
export interface ScannedSubmission {
  id: string;
  status: string;
  email: string | null;
  phone: string | null;
  leadRef: string | null;
  result: string | null;
}

/**
 * How a scan reads a row's contact and lead reference: the person's own submissions by their contact columns, the
 * appointments of their leads by the lead each names.
 */
export type ScanBy = "contact" | "leadReference";

const SCANS: Record<ScanBy, string> = {
  contact: `SELECT id, status, result, contact_email AS email, contact_phone AS phone, NULL AS leadRef
    FROM submissions WHERE company_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  leadReference: `SELECT id, status, result, NULL AS email, NULL AS phone,
      json_extract(canonical_body, '$.leadId') AS leadRef
    FROM submissions WHERE company_id = ? AND id < ? AND kind = 'appointment' ORDER BY id DESC LIMIT ?`,
};

/**
 * One pass over a company's submissions, newest first, ERASURE_CHUNK rows per immediate transaction with the event
 * loop's turn between steps (a large company never holds the thread serving intake). The rows `match` accepts are
 * erased in the step's transaction: payloads dropped, and what was not sent yet failed ("erased at the owner's
 * request") and handed to `onFailed` in that transaction (its outcome recorded there, as forwarding records it).
 * Returns the erased rows' ids. The contact
 * columns stay (forgetContacts): a rerun after a crash finds the person's submissions by them.
 */
export async function scanAndErase(
  { sqlite }: StorageHandles,
  read: (id: string) => SubmissionRow | undefined,
  companyId: string,
  by: ScanBy,
  nowMs: number,
  match: (row: ScannedSubmission) => boolean,
  onFailed: (id: string, failed: SubmissionRow | undefined) => void,
): Promise<string[]> {
  const erased: string[] = [];
  const select = sqlite.prepare<[string, string, number], ScannedSubmission>(SCANS[by]);
  const now = new Date(nowMs).toISOString();
  const erase = sqlite.prepare(
    "UPDATE submissions SET raw_payload = NULL, canonical_body = NULL, purged_at = ?, updated_at = ? WHERE id = ?",
  );
  const fail = sqlite.prepare(
    `UPDATE submissions SET status = 'failed', last_error = 'erased at the owner''s request', next_attempt_at = NULL,
       waiting_reason = NULL, lease_until = NULL WHERE id = ?`,
  );
  // Above every id: the scan walks down from the newest.
  let before = "\uffff";
  for (;;) {
    const step = sqlite
      .transaction(() => {
        const rows = select.all(companyId, before, ERASURE_CHUNK);
        const matching = rows.filter(match);
        for (const row of matching) {
          erase.run(now, now, row.id);
          if (row.status === "forwarded" || row.status === "failed") continue;
          // Nothing is left to send: it ends here, and its vendor hears so as of any failure (§1).
          fail.run(row.id);
          onFailed(row.id, read(row.id));
        }
        return { scanned: rows.length, last: rows.at(-1)?.id, erased: matching.map((r) => r.id) };
      })
      .immediate();
    erased.push(...step.erased);
    if (step.scanned < ERASURE_CHUNK || step.last === undefined) return erased;
    before = step.last;
    await new Promise((resolve) => setImmediate(resolve));
  }
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
  { sqlite }: StorageHandles,
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
