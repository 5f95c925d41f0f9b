/**
 * Time source of the sandbox, injectable so tests can step over window edges (§8) deterministically. Milliseconds
 * since the epoch.
 */
export interface Clock {
  now(): number;
}

/**
 * Epoch-anchored monotonic time: a wall-clock step (NTP) must not shorten or stretch a rate-limit window, or the
 * referee of "zero 429" would be lenient or unfair for a moment.
 */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
};

/** §8 Time: ISO-8601 UTC with a Z suffix, millisecond precision (§2.1 updatedAt). */
export function isoAt(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
