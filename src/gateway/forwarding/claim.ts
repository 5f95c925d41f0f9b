import type { OutageRetry } from "../outage/index.js";
import type { SubmissionRow, SubmissionStore } from "../storage/submissions/index.js";

/**
 * A send's claim on its submission (§7, D-240): `leaseUntil` is both the lease and the claim's token — the value this
 * claim wrote — so that a claim or an outcome retried after an outage can tell its own earlier write from another
 * holder's (D-334).
 */
export interface Claim {
  leaseUntil: number;
}

/**
 * Claims the submission through an outage of the database (D-334): the claim is retried until the database answers,
 * and a try whose COMMIT went through while its answer was lost (the connection died after it) is recognised on the
 * next try by its lease, which no other holder wrote. Undefined when another holder has it, or it is no longer queued.
 */
export async function claimThroughOutage(
  retry: OutageRetry,
  store: SubmissionStore,
  submissionId: string,
  leaseMs: number,
): Promise<Claim | undefined> {
  const written: number[] = [];
  return retry.run(async () => {
    if (written.length > 0) {
      const current = await store.get(submissionId);
      if (current && holds(current, written)) return { leaseUntil: current.leaseUntil ?? 0 };
    }
    const now = Date.now();
    written.push(now + leaseMs);
    return (await store.claim(submissionId, now, leaseMs)) ? { leaseUntil: now + leaseMs } : undefined;
  });
}

/** Whether `row` is still held by the claim that wrote one of `leases` (no outcome committed, no other holder). */
export function holds(row: Pick<SubmissionRow, "status" | "leaseUntil">, leases: readonly number[]): boolean {
  return row.status === "forwarding" && row.leaseUntil !== null && leases.includes(row.leaseUntil);
}
