import { newId } from "../../../../ids.js";
import { type PgHandles, pgTransaction } from "../../pg-handles.js";
import type {
  Admissible,
  AttemptRecord,
  KeyCounts,
  ScanBy,
  ScannedSubmission,
  SubmissionChange,
  SubmissionStore,
  SubmissionTimes,
} from "../port.js";
import type { ChangeCursor, FailedSelection, SubmissionFilter } from "../reads.js";
import type {
  MappingFailureRow,
  NewMappingFailure,
  NewSubmission,
  SubmissionAttemptRow,
  SubmissionRow,
} from "../row.js";
import { Params, ROW, setList } from "./columns.js";
import * as erasure from "./erasure.js";
import * as reads from "./reads.js";
import { INSERT_ONE, PgSubmissionWriter, rowValues } from "./writer.js";

const GET = { name: "submissions_get", text: `SELECT ${ROW} FROM submissions WHERE id = $1` } as const;

const CLAIM = {
  name: "submissions_claim",
  text: `UPDATE submissions SET status = 'forwarding', lease_until = $2::bigint + $3::bigint,
      first_sent_at = coalesce(first_sent_at, $2::bigint), updated_at = $4
    WHERE id = $1 AND (status = 'queued' OR (status = 'forwarding' AND (lease_until IS NULL OR lease_until <= $2::bigint)))`,
} as const;

const MARK_SETTLED = {
  name: "submissions_mark_settled",
  text: "UPDATE submissions SET settlement_recorded_at = $1 WHERE id = $2",
} as const;

const RECORD_ATTEMPT = {
  name: "submission_attempts_insert",
  text: `INSERT INTO submission_attempts (id, submission_id, attempt, counted, started_at, status, error, latency_ms,
      upstream_request_id, upstream_api_version, idempotency_key)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
} as const;

/** The appointments waiting for a lead (`leadId` = its `sub_…` id): of its own company and vendor key. */
const DEPENDENTS_OF = `status = 'waiting' AND kind = 'appointment' AND company_id = $1 AND vendor_key_id = $2
  AND canonical_body->>'leadId' = $3`;

/**
 * The submissions record on PostgreSQL (D-221, D-239…D-242): the SubmissionStore of store.ts, statement by statement,
 * with the same rows. Cheap to build (no I/O): a transaction builds one on its client. Where SQLite relied on its
 * single writer, a statement's own condition decides (a claim is one conditional UPDATE; a release and an erasure's
 * failing re-check the status in their UPDATE), and holdForLead locks the lead's row (D-240).
 */
export class PostgresSubmissionStore implements SubmissionStore {
  readonly #handles: PgHandles;
  readonly #client: PgHandles["client"];
  /** Made on the first insert outside a transaction: the context's store (one per pool) group-commits its callers'. */
  #writer: PgSubmissionWriter | undefined;

  constructor(handles: PgHandles) {
    this.#handles = handles;
    this.#client = handles.client;
  }

  /**
   * Intake's durable accept: resolves once the row is committed (group commit, writer.ts, D-239). Bound to an open
   * transaction: written in it, and committed with it.
   */
  async insert(row: NewSubmission): Promise<void> {
    if (this.#handles.inTransaction) {
      await this.#client.query({ ...INSERT_ONE, values: rowValues(row) });
      return;
    }
    this.#writer ??= new PgSubmissionWriter(this.#handles.pool);
    return this.#writer.insert(row);
  }

  async get(id: string): Promise<SubmissionRow | undefined> {
    return this.#one(GET, [id]);
  }

  /** One row by id through a prepared statement (the settlement's and erasure's per-row reads). */
  async read(id: string): Promise<SubmissionRow | undefined> {
    return this.#one(GET, [id]);
  }

  /** One of a vendor key's own submissions (another key's is not found). */
  async getOfVendorKey(id: string, vendorKeyId: string): Promise<SubmissionRow | undefined> {
    return this.#one(`SELECT ${ROW} FROM submissions WHERE id = $1 AND vendor_key_id = $2`, [id, vendorKeyId]);
  }

  /** One of a company's submissions. */
  async getOfCompany(id: string, companyId: string): Promise<SubmissionRow | undefined> {
    return this.#one(`SELECT ${ROW} FROM submissions WHERE id = $1 AND company_id = $2`, [id, companyId]);
  }

  /** The submission a vendor key already made with this idempotency key (a replay, or a conflict). */
  async findByIdempotencyKey(
    vendorKeyId: string,
    kind: SubmissionRow["kind"],
    idempotencyKey: string,
  ): Promise<SubmissionRow | undefined> {
    return this.#one(
      {
        name: "submissions_by_idempotency_key",
        text: `SELECT ${ROW} FROM submissions WHERE vendor_key_id = $1 AND kind = $2 AND idempotency_key = $3`,
      },
      [vendorKeyId, kind, idempotencyKey],
    );
  }

  /** The lead submission an appointment names: only a lead of the appointment's own vendor key (store.ts). */
  async leadOf(
    appointment: Pick<SubmissionRow, "companyId" | "vendorKeyId">,
    leadSubmissionId: string,
  ): Promise<SubmissionRow | undefined> {
    return this.#one(
      `SELECT ${ROW} FROM submissions WHERE id = $1 AND company_id = $2 AND vendor_key_id = $3 AND kind = 'lead'`,
      [leadSubmissionId, appointment.companyId, appointment.vendorKeyId],
    );
  }

  /** Keeps a payload a guardrail refused, for the owner to fix the profile against (intake's 422). */
  async recordMappingFailure(failure: NewMappingFailure): Promise<void> {
    await this.#client.query(
      `INSERT INTO mapping_failures (id, company_id, vendor_key_id, profile_version_id, message, raw_payload, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        newId("mf"),
        failure.companyId,
        failure.vendorKeyId,
        failure.profileVersionId,
        failure.message,
        failure.rawPayload ?? null,
        failure.createdAt,
      ],
    );
  }

  /** A redrive's reset of a failed submission: queued again with `change` (a re-mapped body, a new key). */
  async requeue(id: string, change: Partial<SubmissionRow>): Promise<void> {
    const p = new Params();
    const set = setList(change, p);
    if (set.length === 0) return;
    await this.#client.query(`UPDATE submissions SET ${set.join(", ")} WHERE id = ${p.add(id)}`, p.values);
  }

  /** Marks a submission's settlement recorded (inside the transaction that records it). */
  async markSettlementRecorded(id: string, nowMs: number): Promise<void> {
    await this.#client.query({ ...MARK_SETTLED, values: [new Date(nowMs).toISOString(), id] });
  }

  /** Settled submissions whose settlement was never recorded, `limit` at a time, on the partial index of exactly those. */
  async settlementsOwed(limit: number): Promise<SubmissionRow[]> {
    const { rows } = await this.#client.query<SubmissionRow>(
      `SELECT ${ROW} FROM submissions WHERE status IN ('forwarded', 'failed') AND settlement_recorded_at IS NULL
       ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows;
  }

  /** After a crash, what was being sent is sent again: leads merge and appointments replay (§4.2), so it is safe. */
  async releaseExpiredLeases(expiredBy: number, now: number): Promise<number> {
    // The embedded driver's start releases every lease (`expiredBy` = Infinity, which SQLite compares as a REAL):
    // bigint has no infinity, and NULL here means "whatever the lease".
    const result = await this.#client.query(
      `UPDATE submissions SET status = 'queued', lease_until = NULL, updated_at = $2
       WHERE status = 'forwarding' AND ($1::bigint IS NULL OR lease_until IS NULL OR lease_until <= $1::bigint)`,
      [Number.isFinite(expiredBy) ? expiredBy : null, new Date(now).toISOString()],
    );
    return result.rowCount ?? 0;
  }

  async releaseLeases(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#client.query(
      `UPDATE submissions SET status = 'queued', lease_until = NULL
       WHERE id = ANY($1::text[]) AND status = 'forwarding'`,
      [ids],
    );
  }

  /** Queued submissions of these (active) credentials, oldest first: what a dispatcher needs of each, no more. */
  async loadQueued(activeCredentialIds: readonly string[]): Promise<Admissible[]> {
    if (activeCredentialIds.length === 0) return [];
    const { rows } = await this.#client.query<Admissible>(
      `SELECT id, kind, company_id AS "companyId", credential_id AS "credentialId",
         next_attempt_at::float8 AS "nextAttemptAt", canonical_body AS "canonicalBody"
       FROM submissions WHERE status = 'queued' AND credential_id = ANY($1::text[]) ORDER BY id`,
      [[...activeCredentialIds]],
    );
    return rows;
  }

  /**
   * Takes the submission for one send: only if it is queued, or its last holder's lease ran out. One conditional
   * UPDATE: of two processes claiming it at once, the second waits for the first's row lock, re-reads the row it
   * committed, and finds it taken (D-240).
   */
  async claim(id: string, now: number, leaseMs: number): Promise<boolean> {
    const result = await this.#client.query({ ...CLAIM, values: [id, now, leaseMs, new Date(now).toISOString()] });
    return result.rowCount === 1;
  }

  /** Gives back a claim that was not sent after all: queued again, its first send time as it was. */
  async unclaim(id: string, firstSentAt: number | null): Promise<void> {
    await this.#client.query(
      `UPDATE submissions SET status = 'queued', lease_until = NULL, first_sent_at = $2::bigint
       WHERE id = $1 AND status = 'forwarding'`,
      [id, firstSentAt],
    );
  }

  /**
   * An appointment naming a lead submission that is not settled yet waits for it. Checked and set in one transaction
   * holding the lead's row lock (`FOR UPDATE`, D-240): settleReleasing's UPDATE of the lead waits for it, and then
   * finds this appointment waiting; or it went first, and this read waits for its commit and sees the lead settled.
   */
  async holdForLead(appointmentId: string, leadSubmissionId: string, now: number): Promise<boolean> {
    return pgTransaction(this.#handles, async ({ client }) => {
      const appointment = await client.query<{ companyId: string; vendorKeyId: string }>(
        `SELECT company_id AS "companyId", vendor_key_id AS "vendorKeyId" FROM submissions WHERE id = $1`,
        [appointmentId],
      );
      const scope = appointment.rows[0];
      if (!scope) return false;
      const lead = await client.query<{ status: string }>(
        `SELECT status FROM submissions WHERE id = $1 AND company_id = $2 AND vendor_key_id = $3 AND kind = 'lead'
         FOR UPDATE`,
        [leadSubmissionId, scope.companyId, scope.vendorKeyId],
      );
      const status = lead.rows[0]?.status;
      if (status === undefined || status === "forwarded" || status === "failed") return false;
      await settleOn(client, appointmentId, now, {
        status: "waiting",
        waitingReason: `waiting for lead submission ${leadSubmissionId}`,
      });
      return true;
    });
  }

  async recordAttempt(
    row: SubmissionRow,
    response: AttemptRecord,
    counted: boolean,
    idempotencyKey: string | null,
  ): Promise<void> {
    await this.#client.query({
      ...RECORD_ATTEMPT,
      values: [
        newId("att"),
        row.id,
        counted ? row.attempts + 1 : row.attempts,
        counted,
        new Date(response.startedAt).toISOString(),
        response.status,
        response.error,
        response.latencyMs,
        response.requestId,
        response.apiVersion,
        idempotencyKey,
      ],
    });
  }

  async settle(id: string, now: number, change: SubmissionChange): Promise<SubmissionRow | undefined> {
    return settleOn(this.#client, id, now, change);
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
    return pgTransaction(this.#handles, async ({ client }) => {
      const settled = await settleOn(client, id, now, change);
      if (settled?.kind !== "lead") return { settled, released: [] };
      const { rows } = await client.query<SubmissionRow>(
        `UPDATE submissions SET status = 'queued', waiting_reason = NULL, lease_until = NULL, updated_at = $4
         WHERE ${DEPENDENTS_OF} RETURNING ${ROW}`,
        [settled.companyId, settled.vendorKeyId, settled.id, new Date(now).toISOString()],
      );
      return { settled, released: rows.sort(byId) };
    });
  }

  /** Appointments left waiting for a lead that is already settled (by a process that predates settleReleasing). */
  async releaseOrphanedDependents(now: number): Promise<number> {
    const result = await this.#client.query(
      `UPDATE submissions SET status = 'queued', waiting_reason = NULL, updated_at = $1
       WHERE status = 'waiting' AND kind = 'appointment'
         AND EXISTS (SELECT 1 FROM submissions lead
           WHERE lead.id = submissions.canonical_body->>'leadId' AND lead.kind = 'lead'
             AND lead.company_id = submissions.company_id AND lead.vendor_key_id = submissions.vendor_key_id
             AND lead.status IN ('forwarded', 'failed'))`,
      [new Date(now).toISOString()],
    );
    return result.rowCount ?? 0;
  }

  /** Appointments of the lead's own vendor key waiting for it (`leadId` = its `sub_…` id) to be forwarded. */
  async dependents(lead: Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">): Promise<SubmissionRow[]> {
    const { rows } = await this.#client.query<SubmissionRow>(
      `SELECT ${ROW} FROM submissions WHERE ${DEPENDENTS_OF} ORDER BY id`,
      [lead.companyId, lead.vendorKeyId, lead.id],
    );
    return rows;
  }

  /** A paused credential's submissions wait (in the transaction that pauses it): what was queued or being sent on it. */
  async waitOnCredential(credentialId: string, reason: string, now: number): Promise<void> {
    await this.#client.query(
      `UPDATE submissions SET status = 'waiting', waiting_reason = $2, lease_until = NULL, updated_at = $3
       WHERE credential_id = $1 AND status IN ('queued', 'forwarding')`,
      [credentialId, `credential paused: ${reason}`, new Date(now).toISOString()],
    );
  }

  /** Submissions still queued on a paused credential wait with the others (forwarding/dispatcher.ts). */
  async parkOnCredential(credentialId: string, reason: string, now: number): Promise<number> {
    const result = await this.#client.query(
      `UPDATE submissions SET status = 'waiting', lease_until = NULL, updated_at = $3, waiting_reason = $2
       WHERE credential_id = $1 AND status = 'queued'`,
      [credentialId, `credential paused: ${reason}`, new Date(now).toISOString()],
    );
    return result.rowCount ?? 0;
  }

  /** A rotated credential resumes its backlog: what waited on it is queued again. */
  async resumeCredential(credentialId: string, now: number): Promise<void> {
    await this.#client.query(
      `UPDATE submissions SET status = 'queued', waiting_reason = NULL, updated_at = $2
       WHERE credential_id = $1 AND status = 'waiting' AND waiting_reason LIKE 'credential paused:%'`,
      [credentialId, new Date(now).toISOString()],
    );
  }

  // The owner's reads (reads.ts).

  listPage(companyId: string, filter: SubmissionFilter): Promise<SubmissionRow[]> {
    return reads.listPage(this.#client, companyId, filter);
  }

  /** A company's submissions changed after `after`, oldest change first (the live log's poll, D-235). */
  changedSince(companyId: string, after: ChangeCursor, limit: number): Promise<SubmissionRow[]> {
    return reads.changedSince(this.#client, companyId, after, limit);
  }

  attemptsOf(submissionId: string): Promise<SubmissionAttemptRow[]> {
    return reads.attemptsOf(this.#client, submissionId);
  }

  mappingFailuresOf(companyId: string, limit: number): Promise<MappingFailureRow[]> {
    return reads.mappingFailuresOf(this.#client, companyId, limit);
  }

  withRawPayload(
    scope: { companyId: string; vendorKeyId: string; kind?: "lead" | "appointment" | undefined },
    limit: number,
  ): Promise<SubmissionRow[]> {
    return reads.withRawPayload(this.#client, scope, limit);
  }

  failedOf(companyId: string, selection: FailedSelection): Promise<SubmissionRow[]> {
    return reads.failedOf(this.#client, companyId, selection);
  }

  countsByKey(companyId: string, since: number, keyId?: string): Promise<KeyCounts[]> {
    return reads.countsByKey(this.#client, companyId, since, keyId);
  }

  timelineSince(companyId: string, since: number): Promise<SubmissionTimes[]> {
    return reads.timelineSince(this.#client, companyId, since);
  }

  sendsByCredential(companyId: string, since: number): Promise<{ credentialId: string; used: number }[]> {
    return reads.sendsByCredential(this.#client, companyId, since);
  }

  sendsSince(since: number): Promise<number> {
    return reads.sendsSince(this.#client, since);
  }

  // Retention and erasure (erasure.ts).

  purgePayloadsBefore(cutoffMs: number, nowIso: string): Promise<number> {
    return erasure.purgePayloadsBefore(this.#handles, cutoffMs, nowIso);
  }

  eraseStep(
    companyId: string,
    by: ScanBy,
    before: string,
    nowMs: number,
    match: (row: ScannedSubmission) => boolean,
  ): Promise<{ erased: string[]; failed: string[]; last: string | undefined }> {
    return erasure.eraseStep(this.#handles, companyId, by, before, nowMs, match);
  }

  forgetContacts(submissionIds: readonly string[]): Promise<void> {
    return erasure.forgetContacts(this.#handles, submissionIds);
  }

  eraseMappingFailures(companyId: string, mentions: (text: string) => boolean): Promise<number> {
    return erasure.eraseMappingFailures(this.#handles, companyId, mentions);
  }

  /** VACUUM of the submissions tables once an erasure has committed (D-241). */
  compactAfterErasure(): Promise<boolean> {
    return erasure.compactAfterErasure(this.#handles);
  }

  async #one(query: string | { name: string; text: string }, values: unknown[]): Promise<SubmissionRow | undefined> {
    const { rows } =
      typeof query === "string"
        ? await this.#client.query<SubmissionRow>(query, values)
        : await this.#client.query<SubmissionRow>({ ...query, values });
    return rows[0];
  }
}

/** Sets `change` on one submission, its lease dropped, and gives the row as it is now. */
async function settleOn(
  client: PgHandles["client"],
  id: string,
  now: number,
  change: SubmissionChange,
): Promise<SubmissionRow | undefined> {
  const p = new Params();
  const set = [...setList(change, p), "lease_until = NULL", `updated_at = ${p.add(new Date(now).toISOString())}`];
  const { rows } = await client.query<SubmissionRow>(
    `UPDATE submissions SET ${set.join(", ")} WHERE id = ${p.add(id)} RETURNING ${ROW}`,
    p.values,
  );
  return rows[0];
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
