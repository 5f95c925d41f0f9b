/** The live log's limits and timings (D-235, D-237). */
export interface StreamLimits {
  /** Open streams per owner session or bearer token: a few tabs, not a tab per submission. */
  perSession: number;
  /** Open streams in this process, every company together. */
  perProcess: number;
  /** How often a company's poller reads the rows changed since its cursor, while it has streams. */
  pollMs: number;
  /**
   * How far behind its cursor each poll reads again: a row stamped by another process whose clock is a little behind,
   * or committed a little after it was stamped, is still seen (each change is sent once).
   */
  lookbackMs: number;
  /** Rows per read, and reads per poll (a burst larger than that is caught up over the next polls). */
  batch: number;
  pagesPerPoll: number;
  /** A comment line this often keeps proxies from closing a quiet stream. */
  heartbeatMs: number;
  /** How often a stream checks that its session is still signed in (sign-out, expiry, idle). */
  sessionCheckMs: number;
  /** Events written to a stream whose client has not read them yet; past this the stream ends (`overflow`). */
  maxBacklog: number;
}

export const STREAM_LIMITS: StreamLimits = {
  perSession: 3,
  perProcess: 500,
  pollMs: 500,
  lookbackMs: 2_000,
  batch: 500,
  pagesPerPoll: 10,
  heartbeatMs: 15_000,
  sessionCheckMs: 2_000,
  maxBacklog: 1_000,
};
