import { newId } from "../../../ids.js";
import type { StoreSql } from "../sql/store-sql.js";
import { compactAfterErasure } from "./compaction.js";
import { compiledOnce } from "./compiled.js";
import * as erasure from "./erasure.js";
import * as forwarding from "./forwarding.js";
import { insertNow } from "./inserts.js";
import type {
  Admissible,
  AttemptRecord,
  ChangeCursor,
  FailedSelection,
  KeyCounts,
  ScanBy,
  ScannedSubmission,
  SubmissionChange,
  SubmissionFilter,
  SubmissionStore,
  SubmissionTimes,
} from "./port.js";
import * as reads from "./reads.js";
import {
  type MappingFailureRow,
  type NewMappingFailure,
  type NewSubmission,
  type SubmissionAttemptRow,
  type SubmissionRow,
  withEpochNumbers,
} from "./row.js";
import * as settlement from "./settlement.js";
import { SubmissionWriter } from "./writer.js";

// The lookups of one row, compiled once (compiled.ts): each runs per intake request, per send or per settlement.

const BY_ID = compiledOnce<{ id: string }>()((db, args) =>
  db.selectFrom("submissions").selectAll().where("id", "=", args.id),
);

const OF_VENDOR_KEY = compiledOnce<{ id: string; vendorKeyId: string }>()((db, args) =>
  db.selectFrom("submissions").selectAll().where("id", "=", args.id).where("vendorKeyId", "=", args.vendorKeyId),
);

const BY_IDEMPOTENCY_KEY = compiledOnce<Pick<SubmissionRow, "vendorKeyId" | "kind" | "idempotencyKey">>()((db, args) =>
  db
    .selectFrom("submissions")
    .selectAll()
    .where("vendorKeyId", "=", args.vendorKeyId)
    .where("kind", "=", args.kind)
    .where("idempotencyKey", "=", args.idempotencyKey),
);

const LEAD_OF = compiledOnce<Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">>()((db, args) =>
  db
    .selectFrom("submissions")
    .selectAll()
    .where("id", "=", args.id)
    .where("companyId", "=", args.companyId)
    .where("vendorKeyId", "=", args.vendorKeyId)
    .where("kind", "=", "lead"),
);

/**
 * The submissions record (submissions, their attempts, and the mapping failures of refused payloads): every statement
 * on its tables is in this folder, once for both databases (D-275). Intake writes through the group-committing writer
 * (writer.ts); forwarding claims and releases (forwarding.ts) and settles (settlement.ts); the owner's tools list
 * (reads.ts), redrive and erase (erasure.ts, compaction.ts). Cheap to build (no I/O, nothing compiled here): the
 * stores of a transaction are built per transaction.
 */
export class SqlSubmissionStore implements SubmissionStore {
  readonly #sql: StoreSql;
  /** Made on the first insert outside a transaction: the context's store group-commits all of its callers'. */
  #writer: SubmissionWriter | undefined;

  constructor(sql: StoreSql) {
    this.#sql = sql;
  }

  /**
   * Intake's durable accept: resolves once the row is committed (group commit, writer.ts). Bound to an open
   * transaction: written in it, and committed with it.
   */
  insert(row: NewSubmission): Promise<void> {
    if (this.#sql.inTransaction) return insertNow(this.#sql, row);
    this.#writer ??= new SubmissionWriter(this.#sql);
    return this.#writer.insert(row);
  }

  get(id: string): Promise<SubmissionRow | undefined> {
    return this.#one(BY_ID.run(this.#sql, { id }));
  }

  /** One row by id (the settlement's and erasure's per-row reads): the same statement as `get`. */
  read(id: string): Promise<SubmissionRow | undefined> {
    return this.#one(BY_ID.run(this.#sql, { id }));
  }

  /** One of a vendor key's own submissions (another key's is not found). */
  getOfVendorKey(id: string, vendorKeyId: string): Promise<SubmissionRow | undefined> {
    return this.#one(OF_VENDOR_KEY.run(this.#sql, { id, vendorKeyId }));
  }

  /** One of a company's submissions. */
  async getOfCompany(id: string, companyId: string): Promise<SubmissionRow | undefined> {
    const row = await this.#sql.db
      .selectFrom("submissions")
      .selectAll()
      .where("id", "=", id)
      .where("companyId", "=", companyId)
      .executeTakeFirst();
    return row && withEpochNumbers(row);
  }

  /** The submission a vendor key already made with this idempotency key (a replay, or a conflict). */
  findByIdempotencyKey(vendorKeyId: string, kind: SubmissionRow["kind"], idempotencyKey: string) {
    return this.#one(BY_IDEMPOTENCY_KEY.run(this.#sql, { vendorKeyId, kind, idempotencyKey }));
  }

  /**
   * The lead submission an appointment names by its id (`leadId: "sub_…"`, appointment chaining, docs/forwarding.md):
   * only a lead submission of the appointment's own vendor key, and so of its own company, is one. Looked up this way
   * wherever a reference is followed — at intake, on a redrive's re-map, when forwarding holds or sends the
   * appointment — never by the id alone, so one tenant's appointment cannot wait on, fail with, or be sent with
   * another's lead.
   */
  leadOf(appointment: Pick<SubmissionRow, "companyId" | "vendorKeyId">, leadSubmissionId: string) {
    const { companyId, vendorKeyId } = appointment;
    return this.#one(LEAD_OF.run(this.#sql, { id: leadSubmissionId, companyId, vendorKeyId }));
  }

  /** Keeps a payload a guardrail refused, for the owner to fix the profile against (intake's 422). */
  async recordMappingFailure(failure: NewMappingFailure): Promise<void> {
    await this.#sql.db
      .insertInto("mappingFailures")
      .values({ id: newId("mf"), ...failure })
      .execute();
  }

  async #one(query: Promise<{ rows: SubmissionRow[] }>): Promise<SubmissionRow | undefined> {
    const [row] = (await query).rows;
    return row && withEpochNumbers(row);
  }

  // Forwarding (forwarding.ts, settlement.ts).

  requeue(id: string, change: Partial<SubmissionRow>): Promise<void> {
    return settlement.requeue(this.#sql, id, change);
  }
  replaceHeld(id: string, change: Partial<SubmissionRow>): Promise<boolean> {
    return settlement.replaceHeld(this.#sql, id, change);
  }
  markSettlementRecorded(id: string, nowMs: number): Promise<void> {
    return settlement.markSettlementRecorded(this.#sql, id, nowMs);
  }
  settlementsOwed(limit: number): Promise<SubmissionRow[]> {
    return settlement.settlementsOwed(this.#sql, limit);
  }
  releaseExpiredLeases(expiredBy: number, now: number, except: readonly string[] = []): Promise<number> {
    return forwarding.releaseExpiredLeases(this.#sql, expiredBy, now, except);
  }
  releaseLeases(ids: string[]): Promise<void> {
    return forwarding.releaseLeases(this.#sql, ids);
  }
  loadQueued(activeCredentialIds: readonly string[]): Promise<Admissible[]> {
    return forwarding.loadQueued(this.#sql, activeCredentialIds);
  }
  claim(id: string, now: number, leaseMs: number): Promise<boolean> {
    return forwarding.claim(this.#sql, id, now, leaseMs);
  }
  unclaim(id: string, firstSentAt: number | null): Promise<void> {
    return forwarding.unclaim(this.#sql, id, firstSentAt);
  }
  holdForLead(appointmentId: string, leadSubmissionId: string, now: number): Promise<boolean> {
    return settlement.holdForLead(this.#sql, appointmentId, leadSubmissionId, now);
  }
  recordAttempt(row: SubmissionRow, response: AttemptRecord, counted: boolean, idempotencyKey: string | null) {
    return forwarding.recordAttempt(this.#sql, row, response, counted, idempotencyKey);
  }
  settle(id: string, now: number, change: SubmissionChange): Promise<SubmissionRow | undefined> {
    return settlement.settle(this.#sql, id, now, change);
  }
  settleReleasing(id: string, now: number, change: SubmissionChange) {
    return settlement.settleReleasing(this.#sql, id, now, change);
  }
  releaseOrphanedDependents(now: number): Promise<number> {
    return settlement.releaseOrphanedDependents(this.#sql, now);
  }
  dependents(lead: Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">): Promise<SubmissionRow[]> {
    return settlement.dependents(this.#sql, lead);
  }
  waitOnCredential(credentialId: string, reason: string, now: number): Promise<void> {
    return forwarding.waitOnCredential(this.#sql, credentialId, reason, now);
  }
  parkOnCredential(credentialId: string, reason: string, now: number): Promise<number> {
    return forwarding.parkOnCredential(this.#sql, credentialId, reason, now);
  }
  resumeCredential(credentialId: string, now: number): Promise<void> {
    return forwarding.resumeCredential(this.#sql, credentialId, now);
  }

  // The owner's reads (reads.ts).

  listPage(companyId: string, filter: SubmissionFilter): Promise<SubmissionRow[]> {
    return reads.listPage(this.#sql, companyId, filter);
  }
  changedSince(companyId: string, after: ChangeCursor, limit: number): Promise<SubmissionRow[]> {
    return reads.changedSince(this.#sql, companyId, after, limit);
  }
  attemptsOf(submissionId: string): Promise<SubmissionAttemptRow[]> {
    return reads.attemptsOf(this.#sql, submissionId);
  }
  mappingFailuresOf(companyId: string, limit: number): Promise<MappingFailureRow[]> {
    return reads.mappingFailuresOf(this.#sql, companyId, limit);
  }
  withRawPayload(scope: Parameters<typeof reads.withRawPayload>[1], limit: number): Promise<SubmissionRow[]> {
    return reads.withRawPayload(this.#sql, scope, limit);
  }
  failedOf(companyId: string, selection: FailedSelection): Promise<SubmissionRow[]> {
    return reads.failedOf(this.#sql, companyId, selection);
  }
  heldOf(companyId: string, selection: FailedSelection): Promise<SubmissionRow[]> {
    return reads.heldOf(this.#sql, companyId, selection);
  }
  countsByKey(companyId: string, since: number, keyId?: string): Promise<KeyCounts[]> {
    return reads.countsByKey(this.#sql, companyId, since, keyId);
  }
  timelineSince(companyId: string, since: number): Promise<SubmissionTimes[]> {
    return reads.timelineSince(this.#sql, companyId, since);
  }
  sendsByCredential(companyId: string, since: number): Promise<{ credentialId: string; used: number }[]> {
    return reads.sendsByCredential(this.#sql, companyId, since);
  }
  sendsSince(since: number): Promise<number> {
    return reads.sendsSince(this.#sql, since);
  }

  // Retention and erasure (erasure.ts, compaction.ts).

  purgePayloadsBefore(cutoffMs: number, nowIso: string): Promise<number> {
    return erasure.purgePayloadsBefore(this.#sql, cutoffMs, nowIso);
  }
  eraseStep(companyId: string, by: ScanBy, before: string, nowMs: number, match: (row: ScannedSubmission) => boolean) {
    return erasure.eraseStep(this.#sql, companyId, by, before, nowMs, match);
  }
  forgetContacts(submissionIds: readonly string[]): Promise<void> {
    return erasure.forgetContacts(this.#sql, submissionIds);
  }
  eraseMappingFailures(companyId: string, mentions: (text: string) => boolean): Promise<number> {
    return erasure.eraseMappingFailures(this.#sql, companyId, mentions);
  }
  compactAfterErasure(): Promise<boolean> {
    return compactAfterErasure(this.#sql);
  }
}
