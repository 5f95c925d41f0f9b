import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/sandbox/clock.js";
import { AdmissionLog } from "../../src/sandbox/limits/admission-log.js";
import { resolveLimits } from "../../src/sandbox/limits/config.js";
import { rateLimitHeaders } from "../../src/sandbox/limits/headers.js";
import { RateLimiter } from "../../src/sandbox/limits/limiter.js";

/** A clock the test moves by hand, so window edges are hit to the millisecond. */
function manualClock(start = 1_000_000): Clock & { set(t: number): void; advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    set: (t) => {
      now = t;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Admits at t if the log allows it, like the limiter does. */
function tryAdmit(log: AdmissionLog, subject: string, t: number): boolean {
  if (log.peek(subject, t).available <= 0) return false;
  log.record(subject, t);
  return true;
}

describe("§8 limits: an exact sliding window log", () => {
  it("admits N requests in a window and refuses the next", () => {
    const log = new AdmissionLog(5, 1000);
    const admitted = [0, 1, 2, 3, 4, 5].map((i) => tryAdmit(log, "k", 10_000 + i));
    expect(admitted).toEqual([true, true, true, true, true, false]);
  });

  it("frees a slot exactly one window after the oldest admission, not a millisecond before", () => {
    const log = new AdmissionLog(3, 1000);
    for (const t of [0, 100, 200]) expect(tryAdmit(log, "k", t)).toBe(true);
    expect(tryAdmit(log, "k", 999)).toBe(false);
    expect(tryAdmit(log, "k", 1000)).toBe(true);
    expect(tryAdmit(log, "k", 1099)).toBe(false);
    expect(tryAdmit(log, "k", 1100)).toBe(true);
  });

  it("never admits 2N across a fixed window's edge, as a fixed-window counter would", () => {
    const log = new AdmissionLog(5, 1000);
    // Five at the end of one would-be fixed window [0, 1000)…
    for (let i = 0; i < 5; i++) expect(tryAdmit(log, "k", 990 + i)).toBe(true);
    // …and none at the start of the next one: they are inside the same sliding window.
    for (let i = 0; i < 5; i++) expect(tryAdmit(log, "k", 1000 + i)).toBe(false);
    expect(tryAdmit(log, "k", 1990)).toBe(true);
  });

  it("over any random arrival pattern, no span of one window holds more than N, and no request is refused needlessly", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const N = 7;
    const W = 1000;
    const log = new AdmissionLog(N, W);
    const admitted: number[] = [];
    let t = 0;
    for (let i = 0; i < 5000; i++) {
      t += Math.floor(random() * 120);
      if (tryAdmit(log, "k", t)) admitted.push(t);
      else {
        // Refused only when N admissions already sit in (t − W, t].
        expect(admitted.filter((a) => a > t - W).length).toBe(N);
      }
    }
    for (let i = 0; i + N < admitted.length; i++) {
      expect((admitted[i + N] ?? 0) - (admitted[i] ?? 0)).toBeGreaterThanOrEqual(W);
    }
    expect(admitted.length).toBeGreaterThan(100);
  });

  it("reports the wait until the oldest admission leaves the window", () => {
    const log = new AdmissionLog(2, 1000);
    tryAdmit(log, "k", 100);
    tryAdmit(log, "k", 400);
    expect(log.peek("k", 700)).toEqual({ available: 0, retryAfterMs: 400, resetMs: 400 });
    expect(log.peek("k", 1100)).toEqual({ available: 1, retryAfterMs: 0, resetMs: 300 });
  });

  it("keeps subjects apart", () => {
    const log = new AdmissionLog(1, 1000);
    expect(tryAdmit(log, "a", 0)).toBe(true);
    expect(tryAdmit(log, "b", 0)).toBe(true);
    expect(tryAdmit(log, "a", 1)).toBe(false);
  });

  it("forgets idle subjects so one-off callers do not accumulate", () => {
    const log = new AdmissionLog(1, 10);
    for (let i = 0; i < 100; i++) tryAdmit(log, `ip-${i}`, 0);
    expect(log.trackedSubjects).toBe(100);
    for (let i = 0; i < 4096; i++) log.peek("probe", 1000);
    expect(log.trackedSubjects).toBe(0);
  });
});

describe("§8 limits: hierarchical levels (key, owner, IP)", () => {
  const perSecond = resolveLimits({
    key: { limit: 3, windowMs: 1000 },
    owner: { limit: 5, windowMs: 1000 },
    ip: { limit: 100, windowMs: 1000 },
  });
  const subjects = (key: string) => [
    { level: "key" as const, id: key },
    { level: "owner" as const, id: "org_a" },
    { level: "ip" as const, id: "10.0.0.1" },
  ];

  it("caps all of an owner's keys together", () => {
    const limiter = new RateLimiter(perSecond, manualClock());
    const outcomes = ["k1", "k1", "k1", "k2", "k2", "k2"].map((k) => limiter.admit(subjects(k)));
    expect(outcomes.map((d) => d.admitted)).toEqual([true, true, true, true, true, false]);
    expect(outcomes[5]?.refusedBy).toEqual(["owner"]);
  });

  it("counts a request at no level when any level refuses it", () => {
    const clock = manualClock();
    const limiter = new RateLimiter(perSecond, clock);
    for (let i = 0; i < 3; i++) limiter.admit(subjects("k1"));
    // k1 is refused ten times; had those counted at the owner, k2 would find the owner full.
    for (let i = 0; i < 10; i++) expect(limiter.admit(subjects("k1")).refusedBy).toEqual(["key"]);
    expect(limiter.admit(subjects("k2")).admitted).toBe(true);
    expect(limiter.admit(subjects("k2")).admitted).toBe(true);
    expect(limiter.admit(subjects("k2")).refusedBy).toEqual(["owner"]);
  });

  it("asks the caller to wait for the slowest refusing level", () => {
    const clock = manualClock(0);
    const limiter = new RateLimiter(
      resolveLimits({ key: { limit: 1, windowMs: 1000 }, owner: { limit: 1, windowMs: 5000 } }),
      clock,
    );
    expect(limiter.admit(subjects("k1")).admitted).toBe(true);
    clock.set(200);
    const refused = limiter.admit(subjects("k1"));
    expect(refused.refusedBy).toEqual(["key", "owner"]);
    expect(refused.retryAfterMs).toBe(4800);
  });

  it("restarts every window when reconfigured", () => {
    const limiter = new RateLimiter(perSecond, manualClock());
    for (let i = 0; i < 3; i++) limiter.admit(subjects("k1"));
    expect(limiter.admit(subjects("k1")).admitted).toBe(false);
    limiter.reconfigure(perSecond);
    expect(limiter.admit(subjects("k1")).admitted).toBe(true);
  });
});

describe("§7 429 headers: retry-after and draft-ietf-httpapi-ratelimit-headers-08", () => {
  it("rounds retry-after up to whole seconds, at least 1", () => {
    const clock = manualClock(0);
    const limiter = new RateLimiter(resolveLimits({ key: { limit: 1, windowMs: 60_000 } }), clock);
    limiter.admit([{ level: "key", id: "k" }]);
    clock.set(59_999.5);
    const headers = rateLimitHeaders(limiter.admit([{ level: "key", id: "k" }]));
    expect(headers["retry-after"]).toBe("1");
    clock.set(1500);
    expect(rateLimitHeaders(limiter.admit([{ level: "key", id: "k" }]))["retry-after"]).toBe("59");
  });

  it("names every level as a policy with its quota and window, and its remaining quota", () => {
    const clock = manualClock(0);
    const limiter = new RateLimiter(resolveLimits(), clock);
    const headers = rateLimitHeaders(
      limiter.admit([
        { level: "key", id: "k" },
        { level: "owner", id: "o" },
        { level: "ip", id: "i" },
      ]),
    );
    expect(headers["ratelimit-policy"]).toBe('"key";q=60;w=60, "owner";q=300;w=60, "ip";q=600;w=60');
    expect(headers.ratelimit).toBe('"key";r=59;t=60, "owner";r=299;t=60, "ip";r=599;t=60');
    expect(headers["retry-after"]).toBeUndefined();
  });
});
