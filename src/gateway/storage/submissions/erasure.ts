import { setImmediate as nextTurn } from "node:timers/promises";
import { idFloor } from "../../../ids.js";
import type { Sql } from "../sql/database.js";
import type { StoreSql } from "../sql/store-sql.js";
import type { ScanBy } from "./row.js";

// Retention and erasure (D-241): what a person's erasure and the retention purge drop, a chunk at a time.

/** Rows of a company scanned per step of an erasure (one transaction, then the event loop's turn). */
export const ERASURE_CHUNK = 2_000;

/** What an erasure's scan reads of a submission. */
export type ScannedSubmission = Awaited<ReturnType<typeof scan>>[number];

/**
 * A step's rows, newest first below `before`: the person's own submissions with their contact, or the appointments
 * with the lead they name; `result` as its JSON text, unparsed (the erasure finds an appointment's id in it).
 */
async function scan(db: Sql, companyId: string, by: ScanBy, before: string) {
  const rows = await db
    .selectFrom("submissions")
    .select((eb) => [
      "id",
      "status",
      "contactEmail",
      "contactPhone",
      eb.cast<string | null>("result", "text").as("resultText"),
      eb.ref("canonicalBody", "->>").key("leadId").$castTo<string | null>().as("leadRef"),
    ])
    .where("companyId", "=", companyId)
    .where("id", "<", before)
    .$if(by === "leadReference", (q) => q.where("kind", "=", "appointment"))
    .orderBy("id", "desc")
    .limit(ERASURE_CHUNK)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    email: by === "contact" ? row.contactEmail : null,
    phone: by === "contact" ? row.contactPhone : null,
    leadRef: by === "leadReference" ? row.leadRef : null,
    result: row.resultText,
  }));
}

/**
 * One step of an erasure's pass over a company's submissions, newest first below `before`, a chunk per immediate
 * transaction (D-241): the rows `match` accepts lose their payloads, and those not sent yet are failed (`failed`, for
 * the caller to record their outcome in the same transaction; the status checked in the UPDATE, D-240). `last`: where
 * the next step starts, none after the last chunk. The contacts stay (forgetContacts): a rerun after a crash uses them.
 */
export function eraseStep(
  store: StoreSql,
  companyId: string,
  by: ScanBy,
  before: string,
  nowMs: number,
  match: (row: ScannedSubmission) => boolean,
): Promise<{ erased: string[]; failed: string[]; last: string | undefined }> {
  const now = new Date(nowMs).toISOString();
  return store.atomically(async (db) => {
    const rows = await scan(db, companyId, by, before);
    const erased = rows.filter(match).map((row) => row.id);
    let failed: string[] = [];
    if (erased.length > 0) {
      await db
        .updateTable("submissions")
        .set({ rawPayload: null, canonicalBody: null, extras: null, purgedAt: now, updatedAt: now })
        .where("id", "in", erased)
        .execute();
      // Nothing is left to send: it ends here, and its vendor hears so as of any failure (§1).
      const ended = await db
        .updateTable("submissions")
        .set({
          status: "failed",
          lastError: "erased at the owner's request",
          nextAttemptAt: null,
          waitingReason: null,
          leaseUntil: null,
        })
        .where("id", "in", erased)
        .where("status", "not in", ["forwarded", "failed"])
        .returning("id")
        .execute();
      const done = new Set(ended.map((row) => row.id));
      failed = erased.filter((id) => done.has(id));
    }
    return { erased, failed, last: rows.length < ERASURE_CHUNK ? undefined : rows.at(-1)?.id };
  });
}

/** The last step of an erasure: the person's submissions forget their contact, and are found by it no more. */
export async function forgetContacts(store: StoreSql, submissionIds: readonly string[]): Promise<void> {
  for (let i = 0; i < submissionIds.length; i += ERASURE_CHUNK) {
    await store.db
      .updateTable("submissions")
      .set({ contactEmail: null, contactPhone: null })
      .where("id", "in", submissionIds.slice(i, i + ERASURE_CHUNK))
      .execute();
  }
}

/** Drops the payloads of a company's mapping failures that `mentions` accepts, a chunk per immediate transaction. */
export async function eraseMappingFailures(
  store: StoreSql,
  companyId: string,
  mentions: (text: string) => boolean,
): Promise<number> {
  let erased = 0;
  let before = "\uffff";
  for (;;) {
    const step = await store.atomically(async (db) => {
      const rows = await db
        .selectFrom("mappingFailures")
        .select(["id", "rawPayload"])
        .where("companyId", "=", companyId)
        .where("id", "<", before)
        .orderBy("id", "desc")
        .limit(ERASURE_CHUNK)
        .execute();
      const ids = rows.filter((row) => row.rawPayload !== null && mentions(row.rawPayload)).map((row) => row.id);
      if (ids.length > 0) {
        const result = await db
          .updateTable("mappingFailures")
          .set({ rawPayload: null })
          .where("id", "in", ids)
          .executeTakeFirst();
        erased += Number(result.numUpdatedRows);
      }
      return { scanned: rows.length, last: rows.at(-1)?.id };
    }, "immediate");
    if (step.scanned < ERASURE_CHUNK || step.last === undefined) return erased;
    before = step.last;
    await nextTurn();
  }
}

/**
 * Drops the raw payloads of finished submissions accepted before `cutoffMs` (a queued one may still be redriven), in
 * one transaction with those of mapping failures as old.
 */
export function purgePayloadsBefore(store: StoreSql, cutoffMs: number, nowIso: string): Promise<number> {
  return store.atomically(async (db) => {
    const purged = await db
      .updateTable("submissions")
      .set({ rawPayload: null, purgedAt: nowIso })
      // Ids are time-ordered and made with createdAt's clock reading: a range on the primary key, so intake's
      // inserts need no created_at index.
      .where("id", "<", idFloor("sub", cutoffMs))
      .where("rawPayload", "is not", null)
      .where("status", "in", ["forwarded", "failed"])
      .executeTakeFirst();
    await db
      .updateTable("mappingFailures")
      .set({ rawPayload: null })
      .where("createdAt", "<", new Date(cutoffMs).toISOString())
      .where("rawPayload", "is not", null)
      .execute();
    return Number(purged.numUpdatedRows);
  });
}
