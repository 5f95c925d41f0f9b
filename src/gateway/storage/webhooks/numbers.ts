/**
 * An epoch-millisecond time as written: a whole number. A Retry-After may be fractional seconds (`1.0005`, so
 * 1,000.5 ms), which PostgreSQL's bigint refuses and SQLite would keep as a REAL; both store it rounded.
 */
export function wholeMs(ms: number): number {
  return Math.round(ms);
}

/** The same for a nullable one. */
export function wholeMsOrNull(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms);
}
