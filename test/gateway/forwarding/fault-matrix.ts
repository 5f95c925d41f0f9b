import { afterEach, describe, expect, it } from "vitest";
import type { SendRetryPolicy } from "../../../src/gateway/forwarding/send-retry.js";
import type { SubmissionRow } from "../../../src/gateway/storage/submissions/index.js";
import { type FaultSpecInput, faultSpecSchema } from "../../../src/sandbox/faults/fault-spec.js";
import { type Rig, type RigOptions, startRig, until } from "../../helpers/forwarding.js";
import { type Bounds, checkAttempts, checkOutcomes, upstreamRequests } from "./fault-checks.js";
import { Workload } from "./fault-workload.js";

/** Seconds-scale §7 schedule: retries within [0, 250 ms × 2^(n-1)] capped at 1 s, five attempts, 15 s horizon. */
const RETRY: SendRetryPolicy = { baseMs: 250, capMs: 1_000, maxAttempts: 5, horizonMs: 15_000 };
/** §8 limits per second, the same at the sandbox and in the gateway. */
const LIMITS = { perKey: 10, perCompany: 16, egress: 40, windowMs: 1_000 };
const CREDENTIALS = 4;
const SECOND = 1_000;
/** The forwarder's timeout where latency should not reach it: well above the 2 s, on two busy cores. */
const TIMEOUT = 6 * SECOND;

/** A storm of `durationMs` with `retry-after` R lets each credential knock about D / R + 1 times (twice: in flight). */
const stormBound = (durationMs: number, retryAfterMs: number) =>
  CREDENTIALS * (Math.ceil(durationMs / retryAfterMs) + 1) * 2;

/**
 * The §7 upstream fault matrix against one forwarding driver: `driver` is what `startRig` needs to run it (the
 * embedded driver by default). Each case starts its own sandbox and gateway, injects its faults at the sandbox, sends
 * the same mix of leads and appointments over four credentials of three companies, and checks the §7 outcomes, the
 * attempt log against the retry schedule and the sandbox's own count of the requests it received.
 */
export function faultMatrix(driver: Partial<RigOptions> = {}, label = "embedded driver"): void {
  const retry: SendRetryPolicy = { ...RETRY, ...driver.retry };
  const bounds = (over: Partial<Bounds> = {}): Bounds => ({
    retry,
    retryAfterMs: SECOND,
    max429: 0,
    max401: 0,
    slackMs: 3 * LIMITS.windowMs,
    ...over,
  });

  describe(`§7 upstream faults, ${label}: every submission ends forwarded, dead-lettered with a reason, or waiting with one`, () => {
    let rig: Rig | undefined;
    afterEach(async () => {
      await rig?.close();
      rig = undefined;
    });

    /** A rig with the workload's companies made, and the sandbox's request count before any forwarding. */
    async function scenario(timeoutMs: number, faults: FaultSpecInput[]) {
      rig = await startRig({ ...LIMITS, timeoutMs, ...driver, retry });
      const workload = await Workload.open(rig);
      // The platform leads made for the workload must not fill the sandbox's first window behind the gateway's back.
      rig.sandbox.admin.setLimits(rig.sandbox.admin.stats().limits);
      const baseline = upstreamRequests(rig.sandbox.admin.stats());
      for (const fault of faults) rig.sandbox.admin.faults.add(faultSpecSchema.parse(fault));
      return { rig, workload, baseline };
    }

    it("§7 30 % 5xx: retried with backoff and the same idempotency key, within the attempt budget", async () => {
      const { rig, workload, baseline } = await scenario(TIMEOUT, [{ route: "*", errorRate: 0.3 }]);
      await workload.submitBatch();
      const rows = await workload.quiet();
      checkOutcomes(rows);
      await checkAttempts(rig, workload, baseline, bounds());
      expect(rig.sandbox.admin.stats().faults.errors).toBeGreaterThan(0);
      expect(forwardedShare(rows)).toBeGreaterThanOrEqual(0.8);
    });

    it("§7 connection resets: a network error is retried like a 5xx", async () => {
      const { rig, workload, baseline } = await scenario(TIMEOUT, [{ route: "*", resetRate: 0.3 }]);
      await workload.submitBatch();
      const rows = await workload.quiet();
      checkOutcomes(rows);
      const { attempts } = await checkAttempts(rig, workload, baseline, bounds());
      const resets = [...attempts.values()].flat().filter((a) => a.status === null);
      expect(resets.length).toBeGreaterThan(0);
      for (const a of resets) expect(a.error).toMatch(/^network error/);
      expect(rig.sandbox.admin.stats().faults.resets).toBe(resets.length);
      expect(forwardedShare(rows)).toBeGreaterThanOrEqual(0.8);
    });

    it("§7 2 s latency over a 1.5 s timeout, before or after the platform acts: retried; no booking made twice", async () => {
      // The first 6 leads are slow to arrive (the platform never acts on them); the first 6 bookings are made at once
      // and answered 2 s later (lost answers). A retry comes a timeout later: no submission meets more than two.
      const { rig, workload, baseline } = await scenario(1_500, [
        { route: "POST /api/inbound/leads", latencyMs: 2 * SECOND, count: 6 },
        { route: "POST /api/inbound/appointments", answerLatencyMs: 2 * SECOND, count: 6 },
      ]);
      await workload.submitBatch();
      const rows = await workload.quiet();
      checkOutcomes(rows);
      // A request the gateway gave up on is counted by the platform when it arrives, after the gateway's limiter slot
      // for it closed (docs/forwarding.md): a window's worth per credential may then be refused, and waited out.
      const late = bounds({ max429: CREDENTIALS * LIMITS.perKey });
      const { attempts } = await checkAttempts(rig, workload, baseline, late);
      expect(rows.map((r) => r.status)).toEqual(rows.map(() => "forwarded"));
      const timeouts = [...attempts.values()].flat().filter((a) => a.status === null);
      expect(timeouts.length).toBeGreaterThanOrEqual(12);
      for (const a of timeouts) expect(a.error).toBe("no answer within 1500 ms");
      // §4.2: a booking whose answer was lost is replayed by each retry that reaches the platform, never made again.
      const upstream = rig.sandbox.admin.stats().appointments;
      let replays = 0;
      for (const t of workload.tracked.filter((s) => s.kind === "appointment")) {
        const sent = attempts.get(t.id) ?? [];
        const booked = upstream.find((a) => a.idempotencyKey === sent[0]?.idempotencyKey);
        expect(booked?.replays).toBeLessThanOrEqual(sent.length - 1);
        replays += booked?.replays ?? 0;
      }
      expect(replays).toBeGreaterThan(0);
    });

    it("§7 2 s latency under a 6 s timeout: slow answers are answers, one attempt each", async () => {
      const { rig, workload, baseline } = await scenario(TIMEOUT, [{ route: "*", latencyMs: 2 * SECOND }]);
      await workload.submitBatch();
      const rows = await workload.quiet();
      checkOutcomes(rows);
      const { attempts } = await checkAttempts(rig, workload, baseline, bounds());
      expect(rows.map((r) => [r.status, r.attempts])).toEqual(rows.map(() => ["forwarded", 1]));
      for (const a of [...attempts.values()].flat()) expect(a.latencyMs).toBeGreaterThanOrEqual(2 * SECOND - 5);
    });

    it("§7 a forced 429 storm with retry-after: waited out per credential, no attempt consumed, no hot loop", async () => {
      const storm = { durationMs: 2_500, retryAfterSeconds: 1 };
      const { rig, workload, baseline } = await scenario(TIMEOUT, [{ route: "*", rateLimitRate: 1, ...storm }]);
      await workload.submitBatch();
      const rows = await workload.quiet();
      checkOutcomes(rows);
      const tally = await checkAttempts(rig, workload, baseline, bounds({ max429: stormBound(2_500, SECOND) }));
      expect(rows.map((r) => [r.status, r.attempts])).toEqual(rows.map(() => ["forwarded", 1]));
      expect(tally.rateLimited).toBeGreaterThanOrEqual(CREDENTIALS);
      expect(tally.rateLimited).toBe(rig.sandbox.admin.stats().faults.rateLimited);
    });

    it("§7 a credential revoked mid-run: its submissions wait with the reason, then forward once it is rotated", async () => {
      const { rig, workload, baseline } = await scenario(TIMEOUT, []);
      const lane = workload.lane(0);
      await workload.submitBatch();
      await workload.revokeWhenSending(lane);
      await workload.submitBatch();
      checkOutcomes(await workload.waitingOn(lane));
      await workload.rotate(lane);
      const rows = await workload.quiet();
      checkOutcomes(rows);
      expect(rows.map((r) => r.status)).toEqual(rows.map(() => "forwarded"));
      const paused = new Set([lane.credentialId]);
      const tally = await checkAttempts(
        rig,
        workload,
        baseline,
        bounds({ max401: LIMITS.perKey, pausedCredentials: paused }),
      );
      expect(tally.rejected).toBeGreaterThanOrEqual(1);
    });

    it("§7 a key rotated while a request with the old one is in flight: the old key's late 401 pauses nothing", async () => {
      // The owner's rotation: the new key goes into the gateway first, then the old one is revoked at the platform.
      const { rig, workload, baseline } = await scenario(TIMEOUT, [{ route: "*", latencyMs: SECOND }]);
      const lane = workload.lane(1);
      await workload.submitBatch(4, [lane]);
      await until(async () => (await workload.rows()).some((r) => r.firstSentAt !== null));
      await workload.rotate(lane);
      rig.sandbox.admin.revokeKey(lane.upstreamKey.split(".")[0] ?? "");
      // Paused by the old key's 401, the chained appointments would wait for a rotation that already happened.
      const rows = await workload.quiet(10_000).catch(() => workload.rows());
      checkOutcomes(rows);
      expect(rows.map((r) => [r.status, r.waitingReason])).toEqual(rows.map(() => ["forwarded", null]));
      const tally = await checkAttempts(rig, workload, baseline, bounds({ max401: LIMITS.perKey }));
      expect(tally.rejected).toBeGreaterThanOrEqual(1);
    });

    it("§7 all combined: 5xx, resets, latency under and over the timeout, a 429 storm, a revoked credential", async () => {
      const window = 4 * SECOND;
      const { rig, workload, baseline } = await scenario(1_500, [
        { route: "POST /api/inbound/leads", latencyMs: SECOND, errorRate: 0.3, resetRate: 0.1, durationMs: window },
        {
          route: "POST /api/inbound/appointments",
          answerLatencyMs: 2 * SECOND,
          errorRate: 0.3,
          resetRate: 0.1,
          rateLimitRate: 0.5,
          retryAfterSeconds: 1,
          durationMs: window,
        },
      ]);
      const lane = workload.lane(2);
      await workload.submitBatch();
      await workload.revokeWhenSending(lane);
      await workload.submitBatch();
      checkOutcomes(await workload.waitingOn(lane));
      await workload.rotate(lane);
      const rows = await workload.quiet();
      checkOutcomes(rows);
      expect(rows.filter((r) => r.status === "waiting")).toEqual([]);
      const paused = new Set([lane.credentialId]);
      await checkAttempts(
        rig,
        workload,
        baseline,
        bounds({
          max429: stormBound(window, SECOND),
          max401: 2 * LIMITS.perKey,
          pausedCredentials: paused,
          slackMs: 6_000,
        }),
      );
      expect(forwardedShare(rows)).toBeGreaterThanOrEqual(0.7);
    });
  });
}

function forwardedShare(rows: SubmissionRow[]): number {
  return rows.filter((r) => r.status === "forwarded").length / rows.length;
}
