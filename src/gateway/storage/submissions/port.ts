import type {
  MappingFailureRow,
  NewMappingFailure,
  NewSubmission,
  SubmissionAttemptRow,
  SubmissionRow,
} from "./row.js";

/** What the owner's submission log filters by. */
export interface SubmissionFilter {
  status?: SubmissionRow["status"];
  keyId?: string;
  /** A hook connection's submissions only. */
  connectionId?: string;
  kind?: "lead" | "appointment";
  /** ISO timestamps bounding createdAt. */
  from?: string;
  to?: string;
  /** A person's e-mail, trimmed and lower-cased as intake stores it (D-319). */
  email?: string;
  /** A person's phone, its digits as intake stores them (D-319). */
  phone?: string;
  /** Text the submission's extras contain, any case (D-320). */
  extras?: string;
  /** The last id of the previous page: ids are time-ordered, so "older than the cursor" is a keyset seek. */
  cursor?: string;
  limit: number;
}

/** A position in a company's changes: the last row read, by its `updatedAt` and then its id. */
export interface ChangeCursor {
  updatedAt: string;
  id: string;
}

/** What a redrive selects: a company's failed submissions (or held hook payloads), by id or by filter (or all). */
export interface FailedSelection {
  submissionIds?: string[] | undefined;
  filter?:
    | { keyId?: string; connectionId?: string; kind?: "lead" | "appointment"; from?: string; to?: string }
    | undefined;
}

/** What a dispatcher needs of a queued submission: its route, when it is due, and a lead it may wait for. */
export type Admissible = Pick<
  SubmissionRow,
  "id" | "kind" | "companyId" | "credentialId" | "nextAttemptAt" | "canonicalBody"
>;

/** What one send upstream gave, as the submission's attempt log records it. */
export interface AttemptRecord {
  startedAt: number;
  status: number | null;
  error: string | null;
  latencyMs: number;
  requestId: string | null;
  apiVersion: string | null;
}

/** The fields of a submission its forwarding (and a redrive) may change. */
export type SubmissionChange = Partial<
  Pick<
    SubmissionRow,
    | "status"
    | "attempts"
    | "nextAttemptAt"
    | "lastError"
    | "upstreamStatus"
    | "result"
    | "waitingReason"
    | "forwardedAt"
    | "canonicalBody"
    | "upstreamIdempotencyKey"
    | "settlementRecordedAt"
    | "firstSentAt"
  >
>;

/**
 * What one fetch attempt of a notified record may write (connections/fetcher.ts): its count, when the next is due and
 * why this one failed; or the record the row becomes (its body, key and status), a held payload, or the dead letter.
 */
export type FetchChange = Partial<
  Pick<
    SubmissionRow,
    | "kind"
    | "status"
    | "rawPayload"
    | "canonicalBody"
    | "profileVersionId"
    | "idempotencyKey"
    | "payloadDigest"
    | "upstreamIdempotencyKey"
    | "contactEmail"
    | "contactPhone"
    | "heldReason"
    | "note"
    | "vendorRecordId"
    | "recordAction"
    | "test"
    | "attempts"
    | "nextAttemptAt"
    | "lastError"
    | "settlementRecordedAt"
  >
>;

/** How an erasure's scan reads a row: the person's own submissions by contact, appointments by the lead they name. */
export type ScanBy = "contact" | "leadReference";

/** What an erasure's scan reads of a submission. */
export interface ScannedSubmission {
  id: string;
  status: string;
  email: string | null;
  phone: string | null;
  leadRef: string | null;
  result: string | null;
}

/** Per vendor key, what was accepted since a time and how much of it is forwarded and failed now. */
export interface KeyCounts {
  keyId: string;
  accepted: number;
  forwarded: number;
  failed: number;
}

/** Per vendor key and connection (null: the key's own intake), what was accepted in a window and how much is held. */
export interface IntakeCounts {
  vendorKeyId: string;
  connectionId: string | null;
  accepted: number;
  held: number;
}

/** The timestamps of one submission (the overview's time series). */
export interface SubmissionTimes {
  status: SubmissionRow["status"];
  createdAt: string;
  forwardedAt: string | null;
  updatedAt: string;
}

/** The submissions record as the capabilities use it (D-221), one implementation for both databases (D-275). */
export interface SubmissionStore {
  /**
   * Intake's durable accept: resolves once the row is committed (group commit). Bound to an open transaction: written
   * in it, and committed with it.
   */
  insert(row: NewSubmission): Promise<void>;
  get(id: string): Promise<SubmissionRow | undefined>;
  /** One of a vendor key's own submissions (another key's is not found). */
  getOfVendorKey(id: string, vendorKeyId: string): Promise<SubmissionRow | undefined>;
  /** One of a company's submissions (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<SubmissionRow | undefined>;
  /** The submission a vendor key already made with this idempotency key (a replay, or a conflict). */
  findByIdempotencyKey(
    vendorKeyId: string,
    kind: SubmissionRow["kind"],
    idempotencyKey: string,
  ): Promise<SubmissionRow | undefined>;
  /**
   * The lead submission an appointment names by its id (appointment chaining, docs/forwarding.md): only a lead of the
   * appointment's own vendor key. Every reference is followed this way: no appointment reaches another tenant's lead.
   */
  leadOf(
    appointment: Pick<SubmissionRow, "companyId" | "vendorKeyId">,
    leadSubmissionId: string,
  ): Promise<SubmissionRow | undefined>;
  /** Keeps a payload a guardrail refused, for the owner to fix the profile against (intake's 422). */
  recordMappingFailure(failure: NewMappingFailure): Promise<void>;
  requeue(id: string, change: Partial<SubmissionRow>): Promise<void>;
  /** A held hook payload becomes `change` (its re-map, D-308); false when it was no longer held. */
  replaceHeld(id: string, change: Partial<SubmissionRow>): Promise<boolean>;
  markSettlementRecorded(id: string, nowMs: number): Promise<void>;
  settlementsOwed(limit: number): Promise<SubmissionRow[]>;
  /**
   * Queues again what is being sent under a lease that ran out by `expiredBy`, except the submissions in `except`
   * (those this process is sending: their outcome is on its way, D-334).
   */
  releaseExpiredLeases(expiredBy: number, now: number, except?: readonly string[]): Promise<number>;
  releaseLeases(ids: string[]): Promise<void>;
  loadQueued(activeCredentialIds: readonly string[]): Promise<Admissible[]>;
  /** The row as the claim left it (`forwarding`, its lease, its first send time), or undefined when not taken. */
  claim(id: string, now: number, leaseMs: number): Promise<SubmissionRow | undefined>;
  unclaim(id: string, firstSentAt: number | null): Promise<void>;
  /** Checked and set in one immediate transaction of its own (or inline in the caller's open transaction). */
  holdForLead(appointmentId: string, leadSubmissionId: string, now: number): Promise<boolean>;
  recordAttempt(
    row: SubmissionRow,
    response: AttemptRecord,
    counted: boolean,
    idempotencyKey: string | null,
  ): Promise<void>;
  settle(id: string, now: number, change: SubmissionChange): Promise<SubmissionRow | undefined>;
  /** Settles and, for a lead, queues the appointments that waited for it, in one transaction. */
  settleReleasing(
    id: string,
    now: number,
    change: SubmissionChange,
  ): Promise<{ settled: SubmissionRow | undefined; released: SubmissionRow[] }>;
  releaseOrphanedDependents(now: number): Promise<number>;
  /**
   * `fetching` rows due at `now` that no live lease holds, the earliest due first, at most `limit` (the fetcher's
   * poll: docs/connections.md, "Fetch after notify"), none of `skipConnections` (those it may not fetch for now).
   */
  dueFetches(now: number, limit: number, skipConnections?: readonly string[]): Promise<SubmissionRow[]>;
  /** Takes a due `fetching` row for one fetch until `now + leaseMs`; false when it is not due or another holds it. */
  claimFetch(id: string, now: number, leaseMs: number): Promise<boolean>;
  /**
   * Ends a fetch attempt under the lease its claim took: `change` written, the lease dropped. The row as it is now, or
   * undefined (nothing written) when the lease is no longer the caller's.
   */
  endFetch(id: string, leaseUntil: number, now: number, change: FetchChange): Promise<SubmissionRow | undefined>;
  /** Removes a fetching row under its lease: what it named is stored already (a repeat, D-323). */
  dropFetch(id: string, leaseUntil: number): Promise<boolean>;
  dependents(lead: Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">): Promise<SubmissionRow[]>;
  waitOnCredential(credentialId: string, reason: string, now: number): Promise<void>;
  parkOnCredential(credentialId: string, reason: string, now: number): Promise<number>;
  resumeCredential(credentialId: string, now: number): Promise<void>;
  listPage(companyId: string, filter: SubmissionFilter): Promise<SubmissionRow[]>;
  /** A company's submissions changed after `after`, oldest change first (the live log's poll, D-235). */
  changedSince(companyId: string, after: ChangeCursor, limit: number): Promise<SubmissionRow[]>;
  attemptsOf(submissionId: string): Promise<SubmissionAttemptRow[]>;
  mappingFailuresOf(companyId: string, limit: number): Promise<MappingFailureRow[]>;
  withRawPayload(
    scope: { companyId: string; vendorKeyId: string; kind?: "lead" | "appointment" | undefined },
    limit: number,
  ): Promise<SubmissionRow[]>;
  failedOf(companyId: string, selection: FailedSelection): Promise<SubmissionRow[]>;
  /** A company's held hook payloads, by id or filter (a re-map's selection, D-308). */
  heldOf(companyId: string, selection: FailedSelection): Promise<SubmissionRow[]>;
  countsByKey(companyId: string, since: number, keyId?: string): Promise<KeyCounts[]>;
  timelineSince(companyId: string, since: number): Promise<SubmissionTimes[]>;
  sendsByCredential(companyId: string, since: number): Promise<{ credentialId: string; used: number }[]>;
  sendsSince(since: number): Promise<number>;
  /** Alerts (docs/alerts.md): per key and connection, accepted and held since `since` (ms). */
  intakeSince(companyId: string, since: number): Promise<IntakeCounts[]>;
  /** Alerts: per key, the payloads a guardrail refused since `since` (ms). */
  mappingFailuresSince(companyId: string, since: number): Promise<{ vendorKeyId: string; failures: number }[]>;
  /** Alerts: the dead letter's size now, and how many entered it since `since` (ISO). */
  deadLetterSince(companyId: string, since: string): Promise<{ total: number; entered: number }>;
  /** Alerts: the submissions forwarded since `since` (ISO), with their times (forwarding's latency). */
  forwardedSince(companyId: string, since: string): Promise<SubmissionTimes[]>;
  /** Alerts: when a key's latest `limit` submissions were accepted, newest first (a vendor gone quiet). */
  latestOfKey(vendorKeyId: string, limit: number): Promise<string[]>;
  purgePayloadsBefore(cutoffMs: number, nowIso: string): Promise<number>;
  /**
   * One step of an erasure's pass over a company's submissions, newest first below `before` (ERASURE_CHUNK rows,
   * D-241): the rows `match` accepts lose their payloads, and those not sent yet are failed (`failed`, for the caller
   * to record their outcome in the same transaction). `last`: where the next step starts; none after the last chunk.
   */
  eraseStep(
    companyId: string,
    by: ScanBy,
    before: string,
    nowMs: number,
    match: (row: ScannedSubmission) => boolean,
  ): Promise<{ erased: string[]; failed: string[]; last: string | undefined }>;
  forgetContacts(submissionIds: readonly string[]): Promise<void>;
  eraseMappingFailures(companyId: string, mentions: (text: string) => boolean): Promise<number>;
  /**
   * Once an erasure has committed: no page of the database keeps an earlier version of what it erased (D-241,
   * sql/compaction.ts); false when SQLite's WAL could not be truncated yet (its next full checkpoint does it).
   */
  compactAfterErasure(): Promise<boolean>;
}
