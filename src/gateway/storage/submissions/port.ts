import type { Bound } from "../sql/store-sql.js";
import type * as alertSignals from "./alert-signals.js";
import type * as erasure from "./erasure.js";
import type * as fetching from "./fetching.js";
import type * as forwarding from "./forwarding.js";
import type * as reads from "./reads.js";
import type { NewMappingFailure, NewSubmission, SubmissionRow } from "./row.js";
import type * as settlement from "./settlement.js";

/**
 * The submissions record as the capabilities use it (D-221), one implementation for both databases (D-275). The
 * methods that run a statement module's function (forwarding.ts, settlement.ts, fetching.ts, reads.ts, erasure.ts,
 * alert-signals.ts) are typed from it and documented there, written once (D-373); the others are written here.
 */
export interface SubmissionStore
  extends Bound<typeof forwarding>,
    Bound<typeof settlement>,
    Bound<typeof fetching>,
    Bound<typeof reads>,
    Bound<typeof erasure>,
    Bound<typeof alertSignals> {
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
  /**
   * Once an erasure has committed: no page of the database keeps an earlier version of what it erased (D-241,
   * sql/compaction.ts); false when SQLite's WAL could not be truncated yet (its next full checkpoint does it).
   */
  compactAfterErasure(): Promise<boolean>;
}
