import { setImmediate as nextTurn } from "node:timers/promises";
import { idFloor } from "../../../ids.js";
import type { StoreSql } from "../sql/store-sql.js";
import type { CaptureStore } from "./port.js";

/** Rows of a company read per step of an erasure (one transaction, then the event loop's turn). */
const ERASURE_CHUNK = 500;

/**
 * The captured payloads record (D-315..D-317): every statement on `captured_payloads`, once for both databases
 * (D-275). Which index serves each is said beside it.
 */
export function sqlCaptureStore(sql: StoreSql): CaptureStore {
  const { db } = sql;
  return {
    // The insert and the trim in one transaction: two captures at once never leave more than `keep`.
    capture: (row, keep) =>
      sql.atomically(async (tx) => {
        await tx.insertInto("capturedPayloads").values(row).execute();
        // captured_payloads_key_id_idx: the key's `keep`-th newest, then everything older than it.
        const oldestKept = await tx
          .selectFrom("capturedPayloads")
          .select("id")
          .where("vendorKeyId", "=", row.vendorKeyId)
          .orderBy("id", "desc")
          .offset(keep - 1)
          .limit(1)
          .executeTakeFirst();
        if (oldestKept) {
          await tx
            .deleteFrom("capturedPayloads")
            .where("vendorKeyId", "=", row.vendorKeyId)
            .where("id", "<", oldestKept.id)
            .execute();
        }
      }, "immediate"),
    // The primary key.
    getOfKey: (id, vendorKeyId) =>
      db
        .selectFrom("capturedPayloads")
        .selectAll()
        .where("id", "=", id)
        .where("vendorKeyId", "=", vendorKeyId)
        .executeTakeFirst(),
    // captured_payloads_key_id_idx, newest first; the company's own keys only.
    listOfKey: (vendorKeyId, companyId, limit) =>
      db
        .selectFrom("capturedPayloads")
        .selectAll()
        .where("vendorKeyId", "=", vendorKeyId)
        .where("companyId", "=", companyId)
        .orderBy("id", "desc")
        .limit(limit)
        .execute(),
    async clearOfKey(vendorKeyId, companyId) {
      const result = await db
        .deleteFrom("capturedPayloads")
        .where("vendorKeyId", "=", vendorKeyId)
        .where("companyId", "=", companyId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    // captured_payloads_company_id_idx, newest first, a chunk per transaction: no contact column to compare, only
    // the text as received (as a mapping failure's).
    async eraseMentioning(companyId, mentions) {
      let erased = 0;
      let before = "\uffff";
      for (;;) {
        const step = await sql.atomically(async (tx) => {
          const rows = await tx
            .selectFrom("capturedPayloads")
            .select(["id", "payload"])
            .where("companyId", "=", companyId)
            .where("id", "<", before)
            .orderBy("id", "desc")
            .limit(ERASURE_CHUNK)
            .execute();
          const ids = rows.filter((row) => mentions(row.payload)).map((row) => row.id);
          if (ids.length > 0) {
            const result = await tx.deleteFrom("capturedPayloads").where("id", "in", ids).executeTakeFirst();
            erased += Number(result.numDeletedRows);
          }
          return { scanned: rows.length, last: rows.at(-1)?.id };
        }, "immediate");
        if (step.scanned < ERASURE_CHUNK || step.last === undefined) return erased;
        before = step.last;
        await nextTurn();
      }
    },
    // The primary key: ids are time-ordered, a time range is an id range.
    async purgeBefore(cutoffMs) {
      const result = await db
        .deleteFrom("capturedPayloads")
        .where("id", "<", idFloor("cap", cutoffMs))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
