import type { OutageRetry } from "../outage/index.js";
import type { SubmissionRow, SubmissionStore } from "../storage/submissions/index.js";

/**
 * A send's claim on its submission (§7, D-240): `leaseUntil` is both the lease and the claim's token — the value this
 * claim wrote — so that a claim or an outcome retried after an outage can tell its own earlier write from another
 * holder's (D-334). `row` is the submission as the claim left it: all a send reads of it (D-361).
 */
export interface Claim {
  leaseUntil: number;
  row: SubmissionRow;
  /**
   * The first send time before this claim, to give back with the row when nothing is sent after all. The claim writes
   * its own time there when there was none; an earlier send at that very millisecond would still hold its lease, so
   * the claim's own time means there was none.
   */
  firstSentBefore: number | null;
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
  const claimOf = (row: SubmissionRow, leaseUntil: number): Claim => {
    const claimedAt = leaseUntil - leaseMs;
    return { leaseUntil, row, firstSentBefore: row.firstSentAt === claimedAt ? null : row.firstSentAt };
  };
  return retry.run(async () => {
    if (written.length > 0) {
      const current = await store.get(submissionId);
      if (current && holds(current, written)) return claimOf(current, current.leaseUntil ?? 0);
    }
    const now = Date.now();
    written.push(now + leaseMs);
    const row = await store.claim(submissionId, now, leaseMs);
    return row ? claimOf(row, now + leaseMs) : undefined;
  });
}

/** Whether `row` is still held by the claim that wrote one of `leases` (no outcome committed, no other holder). */
export function holds(row: Pick<SubmissionRow, "status" | "leaseUntil">, leases: readonly number[]): boolean {
  return row.status === "forwarding" && row.leaseUntil !== null && leases.includes(row.leaseUntil);
}
