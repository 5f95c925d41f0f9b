import { newId } from "../../../ids.js";
import { compactAfterErasure } from "../sql/compaction.js";
import { CompiledOnce } from "../sql/compiled.js";
import { bound, rowOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import * as alertSignals from "./alert-signals.js";
import * as erasure from "./erasure.js";
import * as fetching from "./fetching.js";
import * as forwarding from "./forwarding.js";
import { insertNow } from "./inserts.js";
import type { SubmissionStore } from "./port.js";
import * as reads from "./reads.js";
import type { SubmissionRow } from "./row.js";
import * as settlement from "./settlement.js";
import { SubmissionWriter } from "./writer.js";

// The lookups of one row, compiled once (sql/compiled.ts): each runs per intake request, per send or per settlement.

const BY_ID = new CompiledOnce((on, args: { id: string }) =>
  on.db.selectFrom("submissions").selectAll().where("id", "=", args.id),
);

const OF_VENDOR_KEY = new CompiledOnce((on, args: { id: string; vendorKeyId: string }) =>
  on.db.selectFrom("submissions").selectAll().where("id", "=", args.id).where("vendorKeyId", "=", args.vendorKeyId),
);

const BY_IDEMPOTENCY_KEY = new CompiledOnce(
  (on, args: Pick<SubmissionRow, "vendorKeyId" | "kind" | "idempotencyKey">) =>
    on.db
      .selectFrom("submissions")
      .selectAll()
      .where("vendorKeyId", "=", args.vendorKeyId)
      .where("kind", "=", args.kind)
      .where("idempotencyKey", "=", args.idempotencyKey),
);

const LEAD_OF = new CompiledOnce((on, args: Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">) =>
  on.db
    .selectFrom("submissions")
    .selectAll()
    .where("id", "=", args.id)
    .where("companyId", "=", args.companyId)
    .where("vendorKeyId", "=", args.vendorKeyId)
    .where("kind", "=", "lead"),
);

/**
 * The submissions record (submissions, their attempts, and the mapping failures of refused payloads): every statement
 * on its tables is in this folder, once for both databases (D-275). Cheap to build (no I/O): built per transaction.
 */
export function sqlSubmissionStore(sql: StoreSql): SubmissionStore {
  /** Made on the first insert outside a transaction: the context's store group-commits all of its callers'. */
  let writer: SubmissionWriter | undefined;
  return {
    ...bound(sql, forwarding),
    ...bound(sql, settlement),
    ...bound(sql, fetching),
    ...bound(sql, reads),
    ...bound(sql, erasure),
    ...bound(sql, alertSignals),
    // Bound to an open transaction: written in it, and committed with it.
    insert(row) {
      if (sql.inTransaction) return insertNow(sql, row);
      writer ??= new SubmissionWriter(sql);
      return writer.insert(row);
    },
    get: async (id) => (await BY_ID.run(sql, { id })).rows[0],
    getOfVendorKey: async (id, vendorKeyId) => (await OF_VENDOR_KEY.run(sql, { id, vendorKeyId })).rows[0],
    getOfCompany: (id, companyId) => rowOfCompany(sql.db, "submissions", id, companyId),
    findByIdempotencyKey: async (vendorKeyId, kind, idempotencyKey) =>
      (await BY_IDEMPOTENCY_KEY.run(sql, { vendorKeyId, kind, idempotencyKey })).rows[0],
    leadOf: async ({ companyId, vendorKeyId }, id) => (await LEAD_OF.run(sql, { id, companyId, vendorKeyId })).rows[0],
    recordMappingFailure: (failure) =>
      run(sql.db.insertInto("mappingFailures").values({ id: newId("mf"), ...failure })),
    // SQLite's WAL truncated here for every record's tables (the webhooks' included).
    compactAfterErasure: () => compactAfterErasure(sql, ["submissions", "mapping_failures"], "truncateWal"),
  };
}
