import { describe, expect, it } from "vitest";
import { FairScheduler } from "../../../src/gateway/forwarding/fair-scheduler.js";
import { LimiterHierarchy, nodesOf } from "../../../src/gateway/forwarding/hierarchy.js";
import { type ForwardingLimits, SPEC_FORWARDING_LIMITS } from "../../../src/gateway/forwarding/limits.js";
import { SendWindow } from "../../../src/gateway/forwarding/send-window.js";

/**
 * The limiter's policy (docs/forwarding.md, "The limiter's policy") on a simulated clock: the fair scheduler and the
 * limiter hierarchy of the dispatcher, driven as the dispatcher drives them (a pump at every arrival, answer and wake
 * time), with the upstream answering each send after a chosen round trip. No timers, so the figures are exact.
 */
interface Arrival {
  at: number;
  credentialId: string;
  companyId: string;
}
interface Send extends Arrival {
  id: string;
  sentAt: number;
  answeredAt: number;
}

function simulate(limits: ForwardingLimits, arrivals: Arrival[], rtt: (i: number) => number = () => 20): Send[] {
  const limiter = new LimiterHierarchy(limits, () => null);
  const scheduler = new FairScheduler(limiter);
  const pending = [...arrivals].sort((a, b) => a.at - b.at).map((a, i) => ({ ...a, id: `sub_${i}` }));
  const byId = new Map(pending.map((a) => [a.id, a]));
  const answers: { at: number; answered: (at: number) => void }[] = [];
  const sends: Send[] = [];
  let wakeAt = Number.POSITIVE_INFINITY;
  for (;;) {
    const now = Math.min(
      pending[0]?.at ?? Number.POSITIVE_INFINITY,
      answers[0]?.at ?? Number.POSITIVE_INFINITY,
      wakeAt,
    );
    if (!Number.isFinite(now)) break;
    while (answers[0] && answers[0].at <= now) answers.shift()?.answered(now);
    while (pending[0] && pending[0].at <= now) {
      const arrival = pending.shift();
      if (arrival) scheduler.enqueue({ submissionId: arrival.id, ...arrival });
    }
    wakeAt = Number.POSITIVE_INFINITY;
    for (;;) {
      const take = scheduler.take(now);
      if ("wakeAt" in take) wakeAt = take.wakeAt;
      if (!("ready" in take)) break;
      const arrival = byId.get(take.ready.submissionId);
      if (!arrival) throw new Error("unknown submission");
      const send = { ...arrival, sentAt: now, answeredAt: now + rtt(sends.length) };
      sends.push(send);
      answers.push({ at: send.answeredAt, answered: take.answered });
      answers.sort((a, b) => a.at - b.at);
    }
  }
  return sends;
}

/**
 * The most requests any span of W can hold at the upstream, whenever each arrived between its send and its answer:
 * at each send time x, every request sent by x and answered after x − W may fall in (x − W, x].
 */
function worstWindow(sends: Send[], windowMs: number): number {
  let worst = 0;
  for (const { sentAt: x } of sends) {
    worst = Math.max(worst, sends.filter((s) => s.sentAt <= x && s.answeredAt > x - windowMs).length);
  }
  return worst;
}

function checkExact(sends: Send[], limits: ForwardingLimits): void {
  const levels = [limits.perCredential, limits.perCompany, limits.egress];
  const byNode = new Map<string, { sends: Send[]; level: number }>();
  for (const send of sends) {
    for (const [level, node] of nodesOf(send).entries()) {
      const entry = byNode.get(node) ?? { sends: [], level };
      entry.sends.push(send);
      byNode.set(node, entry);
    }
  }
  for (const [node, { sends: through, level }] of byNode) {
    const rule = levels[level];
    if (!rule) throw new Error("no rule");
    expect(worstWindow(through, rule.windowMs), node).toBeLessThanOrEqual(rule.limit);
  }
}

const burstOf = (n: number, at: number, companyId: string, credentials = 1): Arrival[] =>
  Array.from({ length: n }, (_, i) => ({ at, companyId, credentialId: `${companyId}-c${i % credentials}` }));

const perSecond = (credential: number, company: number, egress: number): ForwardingLimits => ({
  perCredential: { limit: credential, windowMs: 1_000 },
  perCompany: { limit: company, windowMs: 1_000 },
  egress: { limit: egress, windowMs: 1_000 },
  marginMs: 1,
});

describe("§8 limiter policy: a burst goes out at once while every level has room", () => {
  it("sends thirty submissions of an idle credential (60 a minute) at once", () => {
    const sends = simulate(SPEC_FORWARDING_LIMITS, burstOf(30, 0, "co_a"));
    expect(sends.map((s) => s.sentAt)).toEqual(Array(30).fill(0));
  });

  it("sends a burst of exactly N at once, then waits for the window and paces the rest W/N apart", () => {
    const sends = simulate(SPEC_FORWARDING_LIMITS, burstOf(64, 0, "co_a"));
    const times = sends.map((s) => s.sentAt);
    expect(times.slice(0, 60)).toEqual(Array(60).fill(0));
    // The slot 60 sends back closed at its answer (20 ms) and a full window later (+1 ms margin); then one a second.
    expect(times.slice(60)).toEqual([60_021, 61_021, 62_021, 63_021]);
    checkExact(sends, SPEC_FORWARDING_LIMITS);
  });

  it("bursts again once a level that paced a backlog has room and nothing waiting", () => {
    const limits = perSecond(5, 50, 100);
    const sends = simulate(limits, [...burstOf(8, 0, "co_a"), ...burstOf(5, 10_000, "co_a")]);
    const times = sends.map((s) => s.sentAt);
    expect(times.slice(0, 5)).toEqual(Array(5).fill(0));
    expect(times.slice(5, 8)).toEqual([1_021, 1_221, 1_421]);
    expect(times.slice(8)).toEqual(Array(5).fill(10_000));
  });

  it("forgets a hold once the send it held went another way (its credential was paused and drained)", () => {
    const level = new SendWindow(5, 1_000);
    for (let i = 0; i < 5; i++) level.complete(level.record(0), 10);
    expect(level.allowedAt(100)).toBe(1_011);
    // Nothing is sent through it for a while; then a burst finds the full allowance, not a pace of one per 200 ms.
    for (let i = 0; i < 5; i++) {
      expect(level.allowedAt(5_000)).toBeLessThanOrEqual(5_000);
      level.record(5_000);
    }
  });

  it("holds a burst on a company to N − 1, keeping a slot for another credential's first send", () => {
    const limits = perSecond(10, 8, 100);
    const sends = simulate(limits, [
      ...burstOf(12, 0, "co_a", 2),
      { at: 50, companyId: "co_a", credentialId: "co_a-new" },
    ]);
    expect(sends.filter((s) => s.sentAt === 0)).toHaveLength(7);
    expect(sends.find((s) => s.credentialId === "co_a-new")?.sentAt).toBe(50);
    checkExact(sends, limits);
  });
});

describe("§8 limiter policy: an idle company's first send while others saturate the egress", () => {
  const limits = perSecond(5, 8, 12);
  const spacing = 1_000 / 12;
  // Two companies with three credentials each keep a backlog far beyond what the egress takes in the run.
  const backlog = [...burstOf(150, 0, "co_busy_a", 3), ...burstOf(150, 0, "co_busy_b", 3)];

  it("goes at once in the first window, when a burst filled the egress up to its reserve", () => {
    const sends = simulate(limits, [...backlog, { at: 300, companyId: "co_idle", credentialId: "co_idle-c0" }]);
    expect(sends.filter((s) => s.sentAt === 0)).toHaveLength(11);
    expect(sends.find((s) => s.companyId === "co_idle")?.sentAt).toBe(300);
  });

  it("waits at most 2 × W/N_egress plus a round trip, the reserve taken or not, once the egress is paced", () => {
    const rtt = (i: number) => 5 + ((i * 7) % 40);
    const idle: Arrival[] = [];
    // Newcomers every 173 ms from the third window on: several per window, so most find the reserve taken.
    for (let i = 0; i < 30; i++) idle.push({ at: 2_000 + i * 173, companyId: `co_idle${i}`, credentialId: `idle${i}` });
    const sends = simulate(limits, [...backlog, ...idle], rtt);
    const waits = idle.map((a) => (sends.find((s) => s.companyId === a.companyId)?.sentAt ?? Number.NaN) - a.at);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2 * spacing + 45);
    // Positive control: the backlog really saturated the egress (every window as full as the policy lets it be).
    const late = sends.filter((s) => s.sentAt >= 2_000 && s.sentAt < 7_000);
    expect(late.length).toBeGreaterThanOrEqual(5 * 11);
    checkExact(sends, limits);
  });

  it("lends the reserve to the backlog late in a window, and a newcomer that finds it lent waits at most W/N", () => {
    // One newcomer a window, at a different phase each time, into a paced backlog with a steady round trip.
    const idle: Arrival[] = [];
    for (let i = 0; i < 20; i++) {
      idle.push({ at: 3_000 + i * 1_000 + ((i * 137) % 1_000), companyId: `co_idle${i}`, credentialId: `idle${i}` });
    }
    const sends = simulate(limits, [...backlog, ...idle]);
    const waits = idle.map((a) => (sends.find((s) => s.companyId === a.companyId)?.sentAt ?? Number.NaN) - a.at);
    expect(Math.max(...waits)).toBeLessThanOrEqual(spacing);
    // Positive control: the reserve was lent (some newcomers found it taken and waited for the next slot).
    expect(waits.filter((w) => w > 0).length).toBeGreaterThan(0);
    // And lending it is what lets the backlog fill the window: N per window and round trip, not N − 1.
    const late = sends.filter((s) => s.sentAt >= 3_000 && s.sentAt < 23_000);
    expect(late.length).toBeGreaterThanOrEqual(Math.floor((20 * 12 * 1_000) / 1_021) - 1);
    checkExact(sends, limits);
  });

  it("paces the backlog evenly: after the first window no gap between sends is longer than W/(N − 1) + a round trip", () => {
    const sends = simulate(limits, backlog);
    const times = sends.map((s) => s.sentAt).filter((t) => t >= 1_000 && t < 10_000);
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1_000 / 11 + 21);
  });
});

describe("§8 limiter policy: a saturated egress is used fully and shared fairly", () => {
  it("carries N sends per window and round trip once paced, a fifth to each of five backlogged companies", () => {
    // Each company could send 30 a second (three credentials of 10): together half again what the egress takes.
    const limits = perSecond(10, 50, 100);
    const backlog = ["co_a", "co_b", "co_c", "co_d", "co_e"].flatMap((c) => burstOf(600, 0, c, 3));
    const all = simulate(limits, backlog);
    const sends = all.filter((s) => s.sentAt >= 2_000 && s.sentAt < 12_000);
    // 100 per 1,000 ms + a 20 ms round trip + 1 ms of margin: the answer-time rule is all it costs; the reserve, lent
    // to the paced backlog late in each window where no newcomer came, costs nothing (D-360).
    expect(sends.length).toBeGreaterThanOrEqual(Math.floor((10 * 100 * 1_000) / 1_021) - 2);
    for (const company of ["co_a", "co_b", "co_c", "co_d", "co_e"]) {
      const share = sends.filter((s) => s.companyId === company).length / sends.length;
      expect(share).toBeCloseTo(0.2, 2);
    }
    checkExact(all, limits);
  });
});

describe("§8 limiter policy: a clump is shared in turn", () => {
  it("gives the companies of a sudden backlog the first window's clump in turn, not in the order they were queued", () => {
    // The egress takes 11 at once (N − 1), each company 7: in turn, four companies get 2 or 3 each.
    const limits = perSecond(10, 8, 12);
    const backlog = ["co_a", "co_b", "co_c", "co_d"].flatMap((c) => burstOf(20, 0, c, 2));
    const clump = simulate(limits, backlog).filter((s) => s.sentAt === 0);
    expect(clump).toHaveLength(11);
    const counts = ["co_a", "co_b", "co_c", "co_d"].map((c) => clump.filter((s) => s.companyId === c).length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });
});

describe("§8 limiter policy: exact at every level whatever the round trip", () => {
  it("never lets more than N requests reach the upstream in any window W, with random arrivals and answers", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let run = 0; run < 6; run++) {
      const limits = perSecond(3 + run, 6 + 2 * run, 10 + 3 * run);
      const arrivals: Arrival[] = [];
      for (let i = 0; i < 400; i++) {
        const company = Math.floor(random() * 4);
        const bursty = random() < 0.3;
        arrivals.push({
          at: Math.floor(bursty ? Math.floor(random() * 8) * 1_000 : random() * 8_000),
          companyId: `co_${company}`,
          credentialId: `co_${company}-c${Math.floor(random() * (company + 1))}`,
        });
      }
      const sends = simulate(limits, arrivals, () => 1 + Math.floor(random() * 300));
      expect(sends).toHaveLength(400);
      checkExact(sends, limits);
    }
  });
});

describe("§7 limiter policy: a credential out of a 429's pause probes before it bursts", () => {
  const route = { credentialId: "cred_a", companyId: "co_a" };
  const limits = SPEC_FORWARDING_LIMITS;

  it("sends one request when the pause ends, and the rest once that one is answered", () => {
    const limiter = new LimiterHierarchy(limits, () => null);
    const scheduler = new FairScheduler(limiter);
    for (let i = 0; i < 5; i++) scheduler.enqueue({ submissionId: `sub_${i}`, ...route });
    limiter.pause(route.credentialId, 1_000);
    // Paused: nothing goes, and the scheduler wakes at the end of the pause.
    expect(scheduler.take(500)).toEqual({ wakeAt: 1_000 });
    const probe = scheduler.take(1_000);
    if (!("ready" in probe)) throw new Error("the probe did not go");
    // The probe is in flight: the others wait for its answer, not for a time.
    expect(scheduler.take(1_001)).toEqual({ wakeAt: Number.POSITIVE_INFINITY });
    probe.answered(1_020);
    // Positive control: answered, the rest of the backlog goes at once (the credential's burst allowance).
    const after = [1, 2, 3, 4].map(() => scheduler.take(1_021));
    expect(after.every((take) => "ready" in take)).toBe(true);
  });

  it("probes again when the probe itself is refused", () => {
    const limiter = new LimiterHierarchy(limits, () => null);
    const scheduler = new FairScheduler(limiter);
    for (let i = 0; i < 3; i++) scheduler.enqueue({ submissionId: `sub_${i}`, ...route });
    limiter.pause(route.credentialId, 1_000);
    const probe = scheduler.take(1_000);
    if (!("ready" in probe)) throw new Error("the probe did not go");
    // The dispatcher's order: the answer closes the slots, then the 429's verdict pauses the credential again.
    probe.answered(1_020);
    limiter.pause(route.credentialId, 2_020);
    scheduler.enqueue(probe.ready, { front: true });
    expect(scheduler.take(1_500)).toEqual({ wakeAt: 2_020 });
    const second = scheduler.take(2_020);
    expect("ready" in second).toBe(true);
    expect(scheduler.take(2_021)).toEqual({ wakeAt: Number.POSITIVE_INFINITY });
  });
});
