import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type OutageWatch, StoreOutages } from "../../../src/gateway/outage/index.js";
import { captureLog } from "../../helpers/log-capture.js";

/**
 * The registry of one process's store outages (D-332, D-334), on a fake clock: what readiness, /metrics, the sweeps
 * after a recovery and the reconcilers' lease rule read. Steps fail the way node-postgres fails when the server is
 * away (ECONNREFUSED).
 */

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
const GRACE = 15_000;

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse("2026-03-01T12:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A step that fails while `store.down`. */
function store() {
  const state = { down: false };
  return {
    state,
    step: async () => {
      if (state.down) throw refused();
      return "ok";
    },
  };
}

describe("D-332: what the loops report", () => {
  it("a loop's outage is under way from its first failed try to its first success, with its loop, store and reason", async () => {
    const { log } = captureLog();
    const outages = new StoreOutages(log);
    const db = store();
    const retry = outages.retry({ name: "forwarding attempts" });
    expect(outages.current).toEqual([]);
    db.state.down = true;
    const waiting = retry.run(db.step);
    await vi.advanceTimersByTimeAsync(0);
    expect(outages.current).toEqual([
      { loop: "forwarding attempts", store: "database", since: Date.now(), reason: "unreachable" },
    ]);
    expect(outages.databaseDown()).toBe(true);
    db.state.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    await waiting;
    expect(outages.current).toEqual([]);
    expect(outages.databaseDown()).toBe(false);
  });

  it("a Redis outage is Redis's: the database is not down for it", async () => {
    const outages = new StoreOutages(captureLog().log);
    const redis = store();
    redis.state.down = true;
    void outages.retry({ name: "send queue", store: "redis" }).run(redis.step);
    await vi.advanceTimersByTimeAsync(0);
    expect(outages.down("redis")).toBe(true);
    expect(outages.databaseDown()).toBe(false);
    // Positive control: `down()` without a store sees it.
    expect(outages.down()).toBe(true);
  });

  it("the recovery is told once, when the last loop waiting for the store is through", async () => {
    const outages = new StoreOutages(captureLog().log);
    const db = store();
    const heard: string[] = [];
    outages.onRecovered((which) => heard.push(which));
    db.state.down = true;
    const a = outages.retry({ name: "a" }).run(db.step);
    const b = outages.retry({ name: "b" }).run(db.step);
    await vi.advanceTimersByTimeAsync(0);
    db.state.down = false;
    await vi.advanceTimersByTimeAsync(6_000);
    await Promise.all([a, b]);
    expect(heard).toEqual(["database"]);
  });

  it("a loop that closes while it waits no longer counts: the process is not held not-ready by a loop that is gone", async () => {
    const outages = new StoreOutages(captureLog().log);
    const db = store();
    const closed = new AbortController();
    db.state.down = true;
    const waiting = outages.retry({ name: "gone", signal: closed.signal }).run(db.step);
    waiting.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(outages.current).toHaveLength(1);
    closed.abort();
    expect(outages.current).toEqual([]);
  });

  it("D-330: while loops wait, the database is asked once a second; when it answers, they try at once", async () => {
    const outages = new StoreOutages(captureLog().log);
    const db = store();
    const asked: number[] = [];
    outages.probeWith(async () => {
      asked.push(Date.now());
      if (db.state.down) throw refused();
    });
    db.state.down = true;
    let done = false;
    const waiting = outages
      .retry({ name: "forwarding attempts", minDelayMs: 100, maxDelayMs: 5_000, random: () => 1 })
      .run(db.step)
      .then(() => {
        done = true;
      });
    // Long enough for the loop's own wait to reach its 5 s ceiling.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(asked.length).toBeGreaterThanOrEqual(19);
    db.state.down = false;
    await vi.advanceTimersByTimeAsync(1_000);
    // Its own next try was up to 5 s away: the prober's answer let it try within the second.
    expect(done).toBe(true);
    await waiting;
    // Nothing is asked once nobody waits.
    const after = asked.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(asked.length).toBe(after);
    outages.close();
  });

  it("D-330: a loop's outage with no step left waiting is ended by the prober's answer, not left to close the fences", async () => {
    const outages = new StoreOutages(captureLog().log);
    const db = store();
    outages.probeWith(async () => {
      if (db.state.down) throw refused();
    });
    db.state.down = true;
    let tries = 0;
    // Its one step meets the outage, then fails otherwise (a refused statement): nobody waits any more.
    const lone = outages
      .retry({ name: "forwarding attempts" })
      .run(async () => {
        if (tries++ === 0) throw refused();
        throw new TypeError("a bug");
      })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(500);
    expect(await lone).toBeInstanceOf(TypeError);
    expect(outages.databaseDown()).toBe(true);
    db.state.down = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outages.databaseDown()).toBe(false);
    outages.close();
  });

  it("a watch (a check that does not wait) logs once when the outage begins and once when it ends, and reports here", () => {
    const { log, lines } = captureLog();
    const outages = new StoreOutages(log);
    const watch: OutageWatch = outages.watch({ name: "election" });
    for (let i = 0; i < 20; i++) expect(watch.failed(refused())).toBe(true);
    // Not an outage: not counted, and the caller decides.
    expect(watch.failed(new Error("syntax error"))).toBe(false);
    expect(outages.databaseDown()).toBe(true);
    vi.advanceTimersByTime(3_000);
    watch.succeeded();
    watch.succeeded();
    const logged = lines.filter((l) => l.loop === "election").map((l) => [l.msg, l.failedTries, l.outageMs]);
    expect(logged).toEqual([
      ["election: store unavailable", undefined, undefined],
      ["election: store available again", 20, 3_000],
    ]);
    expect(outages.databaseDown()).toBe(false);
  });

  it("/metrics counts each loop's outages and shows the loops waiting now", async () => {
    const outages = new StoreOutages(captureLog().log);
    const registry = new Registry();
    outages.registerMetrics(registry);
    const watch = outages.watch({ name: "election" });
    watch.failed(refused());
    const during = await registry.metrics();
    expect(during).toMatch(/gateway_store_outages_total\{loop="election",store="database"\} 1/);
    expect(during).toMatch(/gateway_store_outage_loops\{store="database"\} 1/);
    watch.succeeded();
    expect(await registry.metrics()).toMatch(/gateway_store_outage_loops\{store="database"\} 0/);
  });
});

describe("D-334: leases that ran out during an outage stay their holders' for a grace after it", () => {
  it("no outage seen: every lease run out by now may be released", () => {
    const outages = new StoreOutages(captureLog().log, { leaseGraceMs: GRACE });
    expect(outages.leaseCutoff(Date.now())).toBe(Date.now());
    expect(outages.settledFrom()).toBe(0);
  });

  it("during an outage and for the grace after it, only leases run out before it began; then all again", () => {
    const outages = new StoreOutages(captureLog().log, { leaseGraceMs: GRACE });
    const watch = outages.watch({ name: "reconciler" });
    const began = Date.now();
    watch.failed(refused());
    vi.advanceTimersByTime(30_000);
    expect(outages.leaseCutoff(Date.now())).toBe(began);
    expect(outages.settledFrom()).toBe(Number.POSITIVE_INFINITY);
    watch.succeeded();
    const ended = Date.now();
    expect(outages.settledFrom()).toBe(ended + GRACE);
    vi.advanceTimersByTime(GRACE - 1);
    expect(outages.leaseCutoff(Date.now())).toBe(began);
    vi.advanceTimersByTime(1);
    expect(outages.leaseCutoff(Date.now())).toBe(Date.now());
  });

  it("an outage beginning again within the grace goes on from the first one's start", () => {
    const outages = new StoreOutages(captureLog().log, { leaseGraceMs: GRACE });
    const watch = outages.watch({ name: "reconciler" });
    const began = Date.now();
    watch.failed(refused());
    vi.advanceTimersByTime(2_000);
    watch.succeeded();
    vi.advanceTimersByTime(5_000);
    watch.failed(refused());
    vi.advanceTimersByTime(2_000);
    watch.succeeded();
    vi.advanceTimersByTime(GRACE - 1);
    expect(outages.leaseCutoff(Date.now())).toBe(began);
  });
});
