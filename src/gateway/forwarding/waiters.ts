import type { SubmissionRow } from "../storage/submissions/index.js";

type Settled = (row: SubmissionRow) => void;

const isSettled = (row: SubmissionRow | undefined) => !row || row.status === "forwarded" || row.status === "failed";

/**
 * Requests waiting for a submission's upstream answer (sync answers: a sync key, `Prefer: wait=N`). Resolved by the
 * process that settles the submission, or by a notice from another process; `pollMs` also re-reads the row, for a
 * notice that never comes (pub/sub drops messages while a connection is down).
 */
export class SettlementWaiters {
  readonly #waiters = new Map<string, Set<Settled>>();

  wait(
    submissionId: string,
    timeoutMs: number,
    read: () => Promise<SubmissionRow | undefined>,
    pollMs?: number,
  ): Promise<SubmissionRow | undefined> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(submissionId) ?? new Set<Settled>();
      const done = (row: SubmissionRow | undefined) => {
        clearTimeout(timer);
        clearInterval(poll);
        waiters.delete(done);
        if (waiters.size === 0) this.#waiters.delete(submissionId);
        resolve(row);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      // A failed read is the next poll's (or the timeout's) to answer.
      const check = () =>
        read().then(
          (row) => {
            if (row && isSettled(row)) done(row);
          },
          () => undefined,
        );
      const poll = pollMs ? setInterval(check, pollMs) : undefined;
      // Registered before the first read: a settlement while it is read is not missed.
      waiters.add(done);
      this.#waiters.set(submissionId, waiters);
      read().then(
        (current) => {
          if (isSettled(current)) done(current);
        },
        () => undefined,
      );
    });
  }

  /** Whether anyone waits for this submission (a notice from another process costs a read only then). */
  has(submissionId: string): boolean {
    return this.#waiters.has(submissionId);
  }

  settled(row: SubmissionRow): void {
    if (!isSettled(row)) return;
    for (const waiter of this.#waiters.get(row.id) ?? []) waiter(row);
  }
}
