import { setTimeout as delay } from "node:timers/promises";
import type Database from "better-sqlite3";
import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { GatewayDb } from "../../../db/client.js";
import { rowReader } from "../../../db/row-reader.js";
import { mappingFailures, submissionAttempts, submissions } from "../../../db/schema/index.js";
import { checkpointTruncate, type SqliteDatabase } from "../../../db/sqlite.js";
import { newId } from "../../../ids.js";
import type { StorageHandles } from "../handles.js";
import { type GateView, INSIDE } from "../sqlite-gate.js";
import { eraseMappingFailures, eraseStep, forgetContacts, purgePayloadsBefore } from "./erasure.js";
import type {
  Admissible,
  AttemptRecord,
  ScanBy,
  ScannedSubmission,
  SubmissionChange,
  SubmissionStore,
} from "./port.js";
import {
  attemptsOf,
  type ChangeCursor,
  changedSince,
  countsByKey,
  type FailedSelection,
  failedOf,
  listPage,
  mappingFailuresOf,
  type SubmissionFilter,
  sendsByCredential,
  sendsSince,
  timelineSince,
  withRawPayload,
} from "./reads.js";
import type {
  MappingFailureRow,
  NewMappingFailure,
  NewSubmission,
  SubmissionAttemptRow,
  SubmissionRow,
} from "./row.js";
import { SubmissionWriter } from "./writer.js";

/** What a dispatcher needs of a queued submission: its route, when it is due, and a lead it may wait for. */
/** How long an erasure keeps trying to empty the WAL past another connection's checkpoint or read, and how often. */
const TRUNCATE_PATIENCE_MS = 3_000;
const TRUNCATE_RETRY_MS = 20;

const admissibleColumns = {
  id: submissions.id,
  kind: submissions.kind,
  companyId: submissions.companyId,
  credentialId: submissions.credentialId,
  nextAttemptAt: submissions.nextAttemptAt,
  canonicalBody: submissions.canonicalBody,
};

/**
 * The submissions record (submissions, their attempts, and the mapping failures of refused payloads): every statement
 * on its tables is here, nowhere else. Intake writes through the group-committing writer; forwarding claims, settles
 * and releases; the owner's tools list, redrive and erase through the reads in this folder.
 *
 * The SQLite implementation of port.ts (D-221): every method waits at the connection's gate while an
 * asynchronous transaction holds it (sqlite-gate.ts, D-222), and otherwise runs on the calling thread at once.
 */
export class SqliteSubmissionStore implements SubmissionStore {
  readonly #handles: StorageHandles;
  readonly #db: GatewayDb;
  readonly #sqlite: SqliteDatabase;
  readonly #writer: SubmissionWriter;
  readonly #read: (id: string) => SubmissionRow | undefined;
  readonly #markSettled: Database.Statement<[string, string]>;
  readonly #owed: Database.Statement<[number], string>;

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
    this.#sqlite = handles.sqlite;
    this.#writer = new SubmissionWriter(handles.sqlite, handles.gate);
    this.#handles = handles;
    this.#read = rowReader(handles.sqlite, submissions);
    this.#markSettled = handles.sqlite.prepare("UPDATE submissions SET settlement_recorded_at = ? WHERE id = ?");
    this.#owed = handles.sqlite
      .prepare<[number], string>(
        `SELECT id FROM submissions INDEXED BY submissions_settlement_owed_idx
         WHERE status IN ('forwarded', 'failed') AND settlement_recorded_at IS NULL ORDER BY id LIMIT ?`,
      )
      .pluck();
  }

  /** Intake's durable accept: resolves once the row is committed (group commit, writer.ts). */
  async insert(row: NewSubmission): Promise<void> {
    // Bound to an open transaction: written in it, and committed with it.
    if (this.#gate === INSIDE) return this.#writer.insertNow(row);
    return this.#writer.insert(row);
  }

  async get(id: string): Promise<SubmissionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#get(id);
  }

  #get(id: string): SubmissionRow | undefined {
    return this.#db.select().from(submissions).where(eq(submissions.id, id)).get();
  }

  /** One row by id through a prepared statement (the settlement's and erasure's per-row reads). */
  async read(id: string): Promise<SubmissionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#read(id);
  }

  /** One of a vendor key's own submissions (another key's is not found). */
  async getOfVendorKey(id: string, vendorKeyId: string): Promise<SubmissionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(submissions)
      .where(and(eq(submissions.id, id), eq(submissions.vendorKeyId, vendorKeyId)))
      .get();
  }

  /** One of a company's submissions. */
  async getOfCompany(id: string, companyId: string): Promise<SubmissionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(submissions)
      .where(and(eq(submissions.id, id), eq(submissions.companyId, companyId)))
      .get();
  }

  /** The submission a vendor key already made with this idempotency key (a replay, or a conflict). */
  async findByIdempotencyKey(vendorKeyId: string, kind: SubmissionRow["kind"], idempotencyKey: string) {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(submissions)
      .where(
        and(
          eq(submissions.vendorKeyId, vendorKeyId),
          eq(submissions.kind, kind),
          eq(submissions.idempotencyKey, idempotencyKey),
        ),
      )
      .get();
  }

  /**
   * The lead submission an appointment names by its id (`leadId: "sub_…"`, appointment chaining, docs/forwarding.md):
   * only a lead submission of the appointment's own vendor key, and so of its own company, is one. Looked up this way
   * wherever a reference is followed — at intake, on a redrive's re-map, when forwarding holds or sends the
   * appointment — never by the id alone, so one tenant's appointment cannot wait on, fail with, or be sent with
   * another's lead.
   */
  async leadOf(
    appointment: Pick<SubmissionRow, "companyId" | "vendorKeyId">,
    leadSubmissionId: string,
  ): Promise<SubmissionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#leadOf(appointment, leadSubmissionId);
  }

  #leadOf(
    appointment: Pick<SubmissionRow, "companyId" | "vendorKeyId">,
    leadSubmissionId: string,
  ): SubmissionRow | undefined {
    return this.#db
      .select()
      .from(submissions)
      .where(
        and(
          eq(submissions.id, leadSubmissionId),
          eq(submissions.companyId, appointment.companyId),
          eq(submissions.vendorKeyId, appointment.vendorKeyId),
          eq(submissions.kind, "lead"),
        ),
      )
      .get();
  }

  /** Keeps a payload a guardrail refused, for the owner to fix the profile against (intake's 422). */
  async recordMappingFailure(failure: NewMappingFailure): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .insert(mappingFailures)
      .values({ id: newId("mf"), ...failure })
      .run();
  }

  /** A redrive's reset of a failed submission: queued again with `change` (a re-mapped body, a new key). */
  async requeue(id: string, change: Partial<SubmissionRow>): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.update(submissions).set(change).where(eq(submissions.id, id)).run();
  }

  /** Marks a submission's settlement recorded (inside the transaction that records it). */
  async markSettlementRecorded(id: string, nowMs: number): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#markSettled.run(new Date(nowMs).toISOString(), id);
  }

  /**
   * Settled submissions whose settlement was never recorded, `limit` at a time, on the partial index of exactly
   * those rows (webhooks/repair-settlements.ts).
   */
  async settlementsOwed(limit: number): Promise<SubmissionRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#owed.all(limit).flatMap((id) => this.#read(id) ?? []);
  }

  /** After a crash, what was being sent is sent again: leads merge and appointments replay (§4.2), so it is safe. */
  async releaseExpiredLeases(expiredBy: number, now: number): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .update(submissions)
      .set({ status: "queued", leaseUntil: null, updatedAt: new Date(now).toISOString() })
      .where(
        and(
          eq(submissions.status, "forwarding"),
          or(isNull(submissions.leaseUntil), lte(submissions.leaseUntil, expiredBy)),
        ),
      )
      .run().changes;
  }

  async releaseLeases(ids: string[]): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    if (ids.length === 0) return;
    this.#db
      .update(submissions)
      .set({ status: "queued", leaseUntil: null })
      .where(and(inArray(submissions.id, ids), eq(submissions.status, "forwarding")))
      .run();
  }

  /** Queued submissions of these (active) credentials, oldest first: what a dispatcher needs of each, no more. */
  async loadQueued(activeCredentialIds: readonly string[]): Promise<Admissible[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select(admissibleColumns)
      .from(submissions)
      .where(and(eq(submissions.status, "queued"), inArray(submissions.credentialId, [...activeCredentialIds])))
      .orderBy(submissions.id)
      .all();
  }

  /**
   * Takes the submission for one send: only if it is queued, or its last holder's lease ran out. Several worker
   * processes may be handed the same submission (a re-dispatch after a lost answer); the database lets one send it.
   */
  async claim(id: string, now: number, leaseMs: number): Promise<boolean> {
    while (this.#gate.busy) await this.#gate.pass();
    return (
      this.#db
        .update(submissions)
        .set({
          status: "forwarding",
          leaseUntil: now + leaseMs,
          firstSentAt: sql`coalesce(${submissions.firstSentAt}, ${now})`,
          updatedAt: new Date(now).toISOString(),
        })
        .where(
          and(
            eq(submissions.id, id),
            or(
              eq(submissions.status, "queued"),
              and(
                eq(submissions.status, "forwarding"),
                or(isNull(submissions.leaseUntil), lte(submissions.leaseUntil, now)),
              ),
            ),
          ),
        )
        .run().changes === 1
    );
  }

  /** Gives back a claim that was not sent after all: queued again, its first send time as it was. */
  async unclaim(id: string, firstSentAt: number | null): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .update(submissions)
      .set({ status: "queued", leaseUntil: null, firstSentAt })
      .where(and(eq(submissions.id, id), eq(submissions.status, "forwarding")))
      .run();
  }

  /**
   * An appointment naming a lead submission that is not settled yet waits for it. Checked and set in one immediate
   * transaction, so a lead settled by another process at the same moment cannot leave it waiting for nothing. A
   * reference that is no lead of the appointment's own key holds nothing: forwarding then fails it (upstream-request).
   */
  async holdForLead(appointmentId: string, leadSubmissionId: string, now: number): Promise<boolean> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#sqlite
      .transaction(() => {
        const appointment = this.#get(appointmentId);
        const lead = appointment && this.#leadOf(appointment, leadSubmissionId);
        if (!lead || lead.status === "forwarded" || lead.status === "failed") return false;
        this.#settle(appointmentId, now, {
          status: "waiting",
          waitingReason: `waiting for lead submission ${leadSubmissionId}`,
        });
        return true;
      })
      .immediate();
  }

  async recordAttempt(
    row: SubmissionRow,
    response: AttemptRecord,
    counted: boolean,
    idempotencyKey: string | null,
  ): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .insert(submissionAttempts)
      .values({
        id: newId("att"),
        submissionId: row.id,
        attempt: counted ? row.attempts + 1 : row.attempts,
        counted,
        startedAt: new Date(response.startedAt).toISOString(),
        status: response.status,
        error: response.error,
        latencyMs: response.latencyMs,
        upstreamRequestId: response.requestId,
        upstreamApiVersion: response.apiVersion,
        idempotencyKey,
      })
      .run();
  }

  async settle(id: string, now: number, change: SubmissionChange): Promise<SubmissionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#settle(id, now, change);
  }

  #settle(id: string, now: number, change: SubmissionChange): SubmissionRow | undefined {
    this.#db
      .update(submissions)
      .set({ ...change, leaseUntil: null, updatedAt: new Date(now).toISOString() })
      .where(eq(submissions.id, id))
      .run();
    return this.#get(id);
  }

  /**
   * Settles a submission and, for a lead, queues the appointments that waited for it, in one transaction: a crash
   * between the two would leave them waiting for a lead that is already done.
   */
  async settleReleasing(
    id: string,
    now: number,
    change: SubmissionChange,
  ): Promise<{ settled: SubmissionRow | undefined; released: SubmissionRow[] }> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#sqlite.transaction(() => {
      const settled = this.#settle(id, now, change);
      if (settled?.kind !== "lead") return { settled, released: [] };
      const released = this.#dependents(settled).flatMap(
        (d) => this.#settle(d.id, now, { status: "queued", waitingReason: null }) ?? [],
      );
      return { settled, released };
    })();
  }

  /** Appointments left waiting for a lead that is already settled (by a process that predates settleReleasing). */
  async releaseOrphanedDependents(now: number): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#sqlite
      .prepare(
        `update submissions set status = 'queued', waiting_reason = null, updated_at = ?
         where status = 'waiting' and kind = 'appointment'
           and exists (select 1 from submissions lead
             where lead.id = json_extract(submissions.canonical_body, '$.leadId') and lead.kind = 'lead'
               and lead.company_id = submissions.company_id and lead.vendor_key_id = submissions.vendor_key_id
               and lead.status in ('forwarded', 'failed'))`,
      )
      .run(new Date(now).toISOString()).changes;
  }

  /** Appointments of the lead's own vendor key waiting for it (`leadId` = its `sub_…` id) to be forwarded. */
  async dependents(lead: Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">): Promise<SubmissionRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#dependents(lead);
  }

  #dependents(lead: Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">): SubmissionRow[] {
    return this.#db
      .select()
      .from(submissions)
      .where(
        and(
          eq(submissions.status, "waiting"),
          eq(submissions.kind, "appointment"),
          eq(submissions.companyId, lead.companyId),
          eq(submissions.vendorKeyId, lead.vendorKeyId),
          sql`json_extract(${submissions.canonicalBody}, '$.leadId') = ${lead.id}`,
        ),
      )
      .all();
  }

  /**
   * A paused credential's submissions wait (in the transaction that pauses it: forwarding/attempt.ts): what was
   * queued or being sent on it.
   */
  async waitOnCredential(credentialId: string, reason: string, now: number): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .update(submissions)
      .set({
        status: "waiting",
        waitingReason: `credential paused: ${reason}`,
        leaseUntil: null,
        updatedAt: new Date(now).toISOString(),
      })
      .where(and(eq(submissions.credentialId, credentialId), inArray(submissions.status, ["queued", "forwarding"])))
      .run();
  }

  /**
   * Submissions still queued on a paused credential wait with the others (forwarding/dispatcher.ts): intake queues
   * whatever it accepts, so a submission accepted while the pause was being committed, or whose notice was lost,
   * would otherwise stay queued.
   */
  async parkOnCredential(credentialId: string, reason: string, now: number): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .update(submissions)
      .set({
        status: "waiting",
        leaseUntil: null,
        updatedAt: new Date(now).toISOString(),
        waitingReason: `credential paused: ${reason}`,
      })
      .where(and(eq(submissions.credentialId, credentialId), eq(submissions.status, "queued")))
      .run().changes;
  }

  /** A rotated credential resumes its backlog: what waited on it is queued again. */
  async resumeCredential(credentialId: string, now: number): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .update(submissions)
      .set({ status: "queued", waitingReason: null, updatedAt: new Date(now).toISOString() })
      .where(
        and(
          eq(submissions.credentialId, credentialId),
          eq(submissions.status, "waiting"),
          sql`${submissions.waitingReason} like 'credential paused:%'`,
        ),
      )
      .run();
  }

  // The owner's reads (reads.ts).

  /** A company's submissions, newest first, keyset-paginated: `limit + 1` rows, so the caller sees whether more follow. */
  async listPage(companyId: string, filter: SubmissionFilter): Promise<SubmissionRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return listPage(this.#handles, companyId, filter);
  }

  /** A company's submissions changed after `after`, oldest change first (the live log's poll, D-235). */
  async changedSince(companyId: string, after: ChangeCursor, limit: number): Promise<SubmissionRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return changedSince(this.#handles, companyId, after, limit);
  }

  /** A submission's sends, oldest first. */
  async attemptsOf(submissionId: string): Promise<SubmissionAttemptRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return attemptsOf(this.#handles, submissionId);
  }

  /** A company's latest mapping failures, newest first. */
  async mappingFailuresOf(companyId: string, limit: number): Promise<MappingFailureRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return mappingFailuresOf(this.#handles, companyId, limit);
  }

  /** A key's latest submissions that still have their raw payload (samples for the profile editor, a replay). */
  async withRawPayload(scope: Parameters<typeof withRawPayload>[1], limit: number): Promise<SubmissionRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return withRawPayload(this.#handles, scope, limit);
  }

  /** A company's failed submissions, by id or filter (a redrive's selection). */
  async failedOf(companyId: string, selection: FailedSelection): Promise<SubmissionRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return failedOf(this.#handles, companyId, selection);
  }

  /** Per vendor key, what was accepted since `since` (ms) and how much of it is forwarded and failed now. */
  async countsByKey(companyId: string, since: number, keyId?: string) {
    while (this.#gate.busy) await this.#gate.pass();
    return countsByKey(this.#handles, companyId, since, keyId);
  }

  /** The timestamps of a company's submissions accepted since `since` (ms). */
  async timelineSince(companyId: string, since: number) {
    while (this.#gate.busy) await this.#gate.pass();
    return timelineSince(this.#handles, companyId, since);
  }

  /** A company's sends since `since` (ms), per upstream credential. */
  async sendsByCredential(companyId: string, since: number) {
    while (this.#gate.busy) await this.#gate.pass();
    return sendsByCredential(this.#handles, companyId, since);
  }

  /** Every company's sends since `since` (ms). */
  async sendsSince(since: number): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
    return sendsSince(this.#handles, since);
  }

  // Retention and erasure (erasure.ts).

  /** Drops finished submissions' raw payloads (and mapping failures') accepted before `cutoffMs`. */
  async purgePayloadsBefore(cutoffMs: number, nowIso: string): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
    return purgePayloadsBefore(this.#handles, cutoffMs, nowIso);
  }

  /** One step of an erasure's pass over a company's submissions (erasure.ts). */
  async eraseStep(
    companyId: string,
    by: ScanBy,
    before: string,
    nowMs: number,
    match: (row: ScannedSubmission) => boolean,
  ): Promise<{ erased: string[]; failed: string[]; last: string | undefined }> {
    while (this.#gate.busy) await this.#gate.pass();
    return eraseStep(this.#handles, companyId, by, before, nowMs, match);
  }

  /** The person's submissions forget their contact columns (the erasure's last step). */
  async forgetContacts(submissionIds: readonly string[]): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    forgetContacts(this.#handles, submissionIds);
  }

  /** Drops the payloads of a company's mapping failures that mention the person. */
  eraseMappingFailures(companyId: string, mentions: (text: string) => boolean): Promise<number> {
    return eraseMappingFailures(this.#handles, companyId, mentions);
  }

  /** The WAL checkpointed and emptied after an erasure (D-241): with `secure_delete` on, no page keeps the bytes. */
  async compactAfterErasure(): Promise<boolean> {
    // The checkpointer thread's own PASSIVE checkpoint, or a read on its connection, makes a TRUNCATE answer busy
    // at once (SQLite runs one checkpoint at a time): it is tried again for a while before the erasure says so.
    const deadline = Date.now() + TRUNCATE_PATIENCE_MS;
    for (;;) {
      while (this.#gate.busy) await this.#gate.pass();
      if (checkpointTruncate(this.#sqlite)) return true;
      if (Date.now() >= deadline) return false;
      await delay(TRUNCATE_RETRY_MS);
    }
  }
}
