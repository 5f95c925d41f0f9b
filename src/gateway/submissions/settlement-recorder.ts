import type { SubmissionRow } from "../storage/submissions/index.js";
import type { TransactionContext } from "../storage/transaction.js";

/**
 * What a settled submission is owed (its vendor's webhook deliveries, the records that route later platform events to
 * it), written inside the transaction of its outcome: both commit, or neither does. A crash, or a database error,
 * between the two would otherwise lose the vendor's confirmation for good. Forwarding calls it; the webhooks module
 * provides it (webhooks/on-submission-settled.ts).
 */
export interface SettlementRecorder {
  /**
   * Writes it inside the caller's transaction `tx`; a throw rolls the outcome back too. Returns the after-commit step.
   * `traceParent`: the settlement's span, which the webhook deliveries it writes continue (docs/tracing.md).
   */
  record(tx: TransactionContext, row: SubmissionRow, traceParent?: string | null): Promise<() => void>;
}
