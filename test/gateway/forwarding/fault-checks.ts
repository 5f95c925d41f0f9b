import { expect } from "vitest";
import type { submissionAttempts } from "../../../src/db/schema/index.js";
import type { SendRetryPolicy } from "../../../src/gateway/forwarding/send-retry.js";
import type { SubmissionRow } from "../../../src/gateway/storage/submissions/index.js";
import type { RunningSandbox } from "../../../src/sandbox/index.js";
import { type Rig, until } from "../../helpers/forwarding.js";
import { attemptRows } from "../../helpers/store-reads.js";
import type { Workload } from "./fault-workload.js";

type Attempt = typeof submissionAttempts.$inferSelect;
type SandboxStats = ReturnType<RunningSandbox["admin"]["stats"]>;

export interface Bounds {
  retry: SendRetryPolicy;
  /** The shortest retry-after any 429 of the case carries. */
  retryAfterMs: number;
  /** Most 429 answers the case may see: a hot loop on 429 would exceed it by far. */
  max429: number;
  /** Most 401/403 answers: the requests in flight when a credential is revoked. */
  max401: number;
  /** Credentials paused by a 401 in the case: their waits are the rotation's, not the schedule's. */
  pausedCredentials?: Set<string>;
  /**
   * How late a retry may start after its backoff ceiling: limiter queueing and pacing, and an event loop starved on
   * two shared cores (a retry due is late, never early; a stuck one never settles at all).
   */
  slackMs: number;
}

export interface Tally {
  requests: number;
  rateLimited: number;
  rejected: number;
  attempts: Map<string, Attempt[]>;
}

/** Timers may fire a millisecond early, and the wall clock and the monotonic one drift apart a little. */
const TIMER_TOLERANCE_MS = 15;
/** When the answer (or the failure) came: the gateway acts on it no sooner. */
const end = (a: Attempt) => Date.parse(a.startedAt) + a.latencyMs;
const start = (a: Attempt) => Date.parse(a.startedAt);
const ceiling = (retry: SendRetryPolicy, attempt: number) =>
  Math.min(retry.capMs, retry.baseMs * 2 ** Math.max(0, attempt - 1));

/** Requests the sandbox saw on the Inbound API: those its guard counted and those a fault answered. */
export function upstreamRequests(stats: SandboxStats): number {
  const guarded = stats.traffic.ips.reduce((sum, ip) => sum + ip.admitted + ip.limited, 0);
  return guarded + stats.faults.errors + stats.faults.resets + stats.faults.rateLimited;
}

/** §7: each submission ends forwarded, or failed with the last error, or waiting with a reason. */
export function checkOutcomes(rows: SubmissionRow[]): void {
  const wrong = rows.filter((r) => {
    if (r.status === "forwarded") return r.result === null;
    if (r.status === "failed") return !r.lastError;
    if (r.status === "waiting") return !r.waitingReason;
    return true;
  });
  expect(wrong.map((r) => ({ id: r.id, status: r.status, lastError: r.lastError }))).toEqual([]);
}

/**
 * The attempt log against §7's schedule and the referee: attempts within the budget and in order, retries no later
 * than their backoff allows and, in sum, no sooner than full jitter makes likely; 429s waited out per credential;
 * one idempotency key per appointment; no appointment created twice upstream; the sandbox saw exactly the requests
 * the gateway recorded, and no more than the bounds allow.
 */
export async function checkAttempts(rig: Rig, workload: Workload, baseline: number, bounds: Bounds): Promise<Tally> {
  const rows = await workload.rows();
  const ids = rows.map((r) => r.id);
  const all = await attemptRows(rig.gateway, ids);
  const attempts = new Map<string, Attempt[]>(ids.map((id) => [id, []]));
  for (const a of all) attempts.get(a.submissionId)?.push(a);
  for (const list of attempts.values()) list.sort((a, b) => start(a) - start(b) || a.attempt - b.attempt);
  const log: Log = { all, attempts, credentialOf: new Map(rows.map((r) => [r.id, r.credentialId])) };

  const problems: string[] = [];
  const jitter = { gaps: 0, ceilings: 0, pairs: 0 };
  for (const row of rows) {
    checkSchedule(row, log, bounds, jitter, problems);
    checkIdempotencyKeys(row, attempts.get(row.id) ?? [], problems);
  }
  // Full jitter draws each wait from [0, ceiling]: their sum falls under a quarter of the ceilings' only when the
  // retries ignore the backoff (a hot loop), not by chance over ten or more waits.
  if (jitter.pairs >= 10 && jitter.gaps < 0.25 * jitter.ceilings)
    problems.push(`retries ${jitter.gaps} ms apart in sum, ceilings ${jitter.ceilings} ms`);
  checkRetryAfter(log, bounds, problems);
  checkAppointmentsUpstream(rig.sandbox.admin.stats(), rows, attempts, problems);
  expect(problems).toEqual([]);

  // Delayed requests reach the sandbox's counters when their latency is over, after the gateway gave up on them.
  const seen = () => upstreamRequests(rig.sandbox.admin.stats()) - baseline;
  const requests = await until(() => (seen() === all.length ? all.length : undefined), 5_000).catch(seen);
  expect(requests).toBe(all.length);
  const rateLimited = all.filter((a) => !a.counted && a.status === 429).length;
  const rejected = all.filter((a) => !a.counted && (a.status === 401 || a.status === 403)).length;
  // The referee's count: a 429 whose answer came too late for the gateway is one it never saw.
  const stats = rig.sandbox.admin.stats();
  const refused = stats.faults.rateLimited + stats.traffic.ips.reduce((sum, ip) => sum + ip.limited, 0);
  expect(rateLimited).toBeLessThanOrEqual(refused);
  expect(refused).toBeLessThanOrEqual(bounds.max429);
  expect(rejected).toBeLessThanOrEqual(bounds.max401);
  expect(requests).toBeLessThanOrEqual(rows.length * bounds.retry.maxAttempts + bounds.max429 + bounds.max401);
  return { requests, rateLimited, rejected, attempts };
}

interface Log {
  all: Attempt[];
  /** Per submission, in the order sent. */
  attempts: Map<string, Attempt[]>;
  credentialOf: Map<string, string>;
}

/** One submission's attempts against the retry policy. */
function checkSchedule(
  row: SubmissionRow,
  log: Log,
  bounds: Bounds,
  jitter: { gaps: number; ceilings: number; pairs: number },
  problems: string[],
): void {
  const list = log.attempts.get(row.id) ?? [];
  const counted = list.filter((a) => a.counted);
  if (counted.length > bounds.retry.maxAttempts) problems.push(`${row.id}: ${counted.length} attempts`);
  if (counted.length !== row.attempts) problems.push(`${row.id}: row says ${row.attempts}, log ${counted.length}`);
  counted.forEach((a, i) => {
    if (a.attempt !== i + 1) problems.push(`${row.id}: attempt ${a.attempt} at position ${i + 1}`);
  });
  // Full jitter's shortest wait is 0: what the schedule always promises is that an attempt awaits the previous answer.
  list.slice(1).forEach((a, i) => {
    const before = list[i];
    if (before && start(a) < end(before) - TIMER_TOLERANCE_MS) problems.push(`${row.id}: attempts overlap`);
  });
  const paused = bounds.pausedCredentials?.has(row.credentialId) ?? false;
  counted.slice(1).forEach((b, i) => {
    const a = counted[i];
    if (!a) return;
    const gap = start(b) - end(a);
    const limit = ceiling(bounds.retry, a.attempt);
    jitter.gaps += gap;
    jitter.ceilings += limit;
    jitter.pairs += 1;
    // A 429 or 401 on the same credential in between holds every submission of it: not the schedule's wait.
    const held =
      paused ||
      log.all.some(
        (u) =>
          !u.counted &&
          log.credentialOf.get(u.submissionId) === row.credentialId &&
          end(u) >= end(a) &&
          start(u) <= start(b),
      );
    if (!held && gap > limit + bounds.slackMs)
      problems.push(`${row.id}: retry ${b.attempt} after ${gap} ms, ceiling ${limit} ms`);
  });
  const first = list[0];
  const last = counted.at(-1);
  if (!paused && first && last && start(last) - start(first) > bounds.retry.horizonMs + bounds.slackMs)
    problems.push(`${row.id}: attempts span ${start(last) - start(first)} ms, horizon ${bounds.retry.horizonMs} ms`);
}

/** §7 and §8: a retry carries the same idempotency key; a lead has none (it merges, §3.3). */
function checkIdempotencyKeys(row: SubmissionRow, list: Attempt[], problems: string[]): void {
  const keys = new Set(list.map((a) => a.idempotencyKey));
  if (row.kind === "lead" && (keys.size > 1 || (keys.size === 1 && !keys.has(null))))
    problems.push(`${row.id}: a lead sent with an idempotency key`);
  if (row.kind === "appointment" && (keys.size > 1 || keys.has(null)))
    problems.push(`${row.id}: idempotency keys ${[...keys].join(", ")}`);
}

/** §7 429: after one, nothing goes out on that credential until its retry-after has passed. */
function checkRetryAfter(log: Log, bounds: Bounds, problems: string[]): void {
  for (const r of log.all.filter((a) => a.status === 429)) {
    const credentialId = log.credentialOf.get(r.submissionId);
    const early = log.all.filter(
      (a) =>
        log.credentialOf.get(a.submissionId) === credentialId &&
        start(a) > end(r) &&
        start(a) < end(r) + bounds.retryAfterMs - TIMER_TOLERANCE_MS,
    );
    for (const a of early)
      problems.push(`${a.submissionId}: sent ${start(a) - end(r)} ms after a 429 on its credential`);
  }
}

/** §4.2: a retried booking replays; no appointment exists twice upstream, and a forwarded one is the one stored. */
function checkAppointmentsUpstream(
  stats: SandboxStats,
  rows: SubmissionRow[],
  attempts: Map<string, Attempt[]>,
  problems: string[],
): void {
  const byKey = new Map<string, SandboxStats["appointments"]>();
  for (const a of stats.appointments) byKey.set(a.idempotencyKey, [...(byKey.get(a.idempotencyKey) ?? []), a]);
  for (const row of rows.filter((r) => r.kind === "appointment")) {
    const key = attempts.get(row.id)?.[0]?.idempotencyKey;
    const upstream = key ? (byKey.get(key) ?? []) : [];
    if (upstream.length > 1) problems.push(`${row.id}: ${upstream.length} appointments upstream`);
    if (row.status !== "forwarded") continue;
    const appointmentId = (row.result as { appointmentId?: string } | null)?.appointmentId;
    if (upstream[0]?.appointmentId !== appointmentId)
      problems.push(`${row.id}: forwarded as ${appointmentId}, not found upstream`);
  }
}
