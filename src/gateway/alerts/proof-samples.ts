/**
 * The refused-proof counters of hook connections as this evaluator last read them (D-341): `connections.proof_failures`
 * is a running count, so a burst is the difference between now and a sample read about a window ago. Kept in memory:
 * an evaluator that starts (or takes over) counts from its first read, so refusals while no evaluator ran are not a
 * burst — their `lastProofFailureAt` still keeps an open alert open.
 */
export class ProofSamples {
  readonly #samples = new Map<string, { at: number; count: number }[]>();

  /**
   * Records `count` at `at` and answers how much it grew since the sample at or before `windowStart` (or the first);
   * `baseline`: what to count from when there is no sample yet (0 for a connection made within the window).
   */
  record(
    connectionId: string,
    at: number,
    count: number,
    windowStart: number,
    baseline: number,
  ): { grown: number; sinceLast: number } {
    const samples = this.#samples.get(connectionId) ?? [{ at: windowStart, count: baseline }];
    const last = samples.at(-1);
    // Keep one sample at or before the window's start: the baseline of the whole window.
    while (samples.length > 1 && (samples[1]?.at ?? Number.POSITIVE_INFINITY) <= windowStart) samples.shift();
    const base = samples[0];
    samples.push({ at, count });
    this.#samples.set(connectionId, samples);
    return {
      grown: base === undefined ? 0 : Math.max(0, count - base.count),
      sinceLast: last === undefined ? 0 : Math.max(0, count - last.count),
    };
  }

  /** Forgets a connection (revoked): its counter no longer moves. */
  forget(connectionId: string): void {
    this.#samples.delete(connectionId);
  }
}
