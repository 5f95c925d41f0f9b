import { newId } from "../../../ids.js";
import { compactAfterErasure } from "../sql/compaction.js";
import { CompiledOnce } from "../sql/compiled.js";
import { bound, rowOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import * as alertSignals from "./alert-signals.js";
import * as erasure from "./erasure.js";
import * as fetching from "./fetching.js";
import * as forwarding from "./forwarding.js";
import { insertNow } from "./inserts.js";
import * as reads from "./reads.js";
import type { NewMappingFailure, NewSubmission, SubmissionRow } from "./row.js";
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

/** The submissions record as the capabilities use it (D-221): its store's type (D-374; `bound` methods: D-373). */
export type SubmissionStore = ReturnType<typeof sqlSubmissionStore>;

/**
 * The submissions record (submissions, their attempts, and the mapping failures of refused payloads): every statement
 * on its tables is in this folder, once for both databases (D-275). Cheap to build (no I/O): built per transaction.
 */
export function sqlSubmissionStore(sql: StoreSql) {
  /** Made on the first insert outside a transaction: the context's store group-commits all of its callers'. */
  let writer: SubmissionWriter | undefined;
  return {
    ...bound(sql, forwarding),
    ...bound(sql, settlement),
    ...bound(sql, fetching),
    ...bound(sql, reads),
    ...bound(sql, erasure),
    ...bound(sql, alertSignals),
    /**
     * Intake's durable accept: resolves once the row is committed (group commit). Bound to an open transaction: written
     * in it, and committed with it.
     */
    insert(row: NewSubmission): Promise<void> {
      if (sql.inTransaction) return insertNow(sql, row);
      writer ??= new SubmissionWriter(sql);
      return writer.insert(row);
    },
    get: async (id: string) => (await BY_ID.run(sql, { id })).rows[0],
    /** One of a vendor key's own submissions (another key's is not found). */
    getOfVendorKey: async (id: string, vendorKeyId: string) =>
      (await OF_VENDOR_KEY.run(sql, { id, vendorKeyId })).rows[0],
    getOfCompany: (id: string, companyId: string) => rowOfCompany(sql.db, "submissions", id, companyId),
    /** The submission a vendor key already made with this idempotency key (a replay, or a conflict). */
    findByIdempotencyKey: async (vendorKeyId: string, kind: SubmissionRow["kind"], idempotencyKey: string) =>
      (await BY_IDEMPOTENCY_KEY.run(sql, { vendorKeyId, kind, idempotencyKey })).rows[0],
    /**
     * The lead submission an appointment names by its id (appointment chaining, docs/forwarding.md): only a lead of the
     * appointment's own vendor key. Every reference is followed this way: no appointment reaches another tenant's lead.
     */
    leadOf: async ({ companyId, vendorKeyId }: Pick<SubmissionRow, "companyId" | "vendorKeyId">, id: string) =>
      (await LEAD_OF.run(sql, { id, companyId, vendorKeyId })).rows[0],
    /** Keeps a payload a guardrail refused, for the owner to fix the profile against (intake's 422). */
    recordMappingFailure: (failure: NewMappingFailure) =>
      run(sql.db.insertInto("mappingFailures").values({ id: newId("mf"), ...failure })),
    /**
     * Once an erasure has committed: no page keeps an earlier version of what it erased (D-241, sql/compaction.ts);
     * false when SQLite's WAL, truncated here for every record's tables, could not be yet.
     */
    compactAfterErasure: () => compactAfterErasure(sql, ["submissions", "mapping_failures"], "truncateWal"),
  };
}
