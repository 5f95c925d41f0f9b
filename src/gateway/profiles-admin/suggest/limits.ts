/**
 * How much a suggestion may take (docs/decisions.md, D-314, and "Bounded input"): one at a time per process on a
 * thread of its own, a few waiting, a time limit and a heap of its own. The input itself is bounded by the route: at
 * most 20 payloads in a body of PAYLOAD_BODY's 2 MB, nested no deeper than a payload intake takes.
 */
export interface SuggestLimits {
  /** Wall time from the thread taking a suggestion to its answer; past it the thread is stopped. */
  timeoutMs: number;
  /** Suggestions waiting for the thread; past it the request is refused (503, retry later). */
  maxQueue: number;
  /** The thread's heap: parsed payloads of 2 MB, their leaves and the answer fit well within. */
  heapMb: number;
}

export const SUGGEST_LIMITS: Readonly<SuggestLimits> = { timeoutMs: 3_000, maxQueue: 4, heapMb: 256 };

/** Payloads a suggestion reads at most (the route's schema says so too). */
export const MAX_SUGGEST_PAYLOADS = 20;
