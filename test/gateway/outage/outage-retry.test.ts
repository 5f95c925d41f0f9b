import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OutageRetry, OutageRetryClosedError } from "../../../src/gateway/outage/index.js";
import { captureLog } from "../../helpers/log-capture.js";

/**
 * The retry loop on a fake clock with a fake step: the store is "down" while a flag says so (its failures are the
 * shape node-postgres gives; isStoreOutage is tested on real errors beside this file).
 */

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

/** A store that is up or down, counting the tries it sees, their times, and how many run at once. */
function fakeStore() {
  const store = {
    down: false,
    tries: [] as number[],
    running: 0,
    mostAtOnce: 0,
    /** One row's step: a read that fails while the store is down. */
    step<T>(value: T, latencyMs = 0) {
      return async () => {
        store.tries.push(Date.now());
        store.running++;
        store.mostAtOnce = Math.max(store.mostAtOnce, store.running);
        try {
          if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
          if (store.down) throw refused();
          return value;
        } finally {
          store.running--;
        }
      };
    },
  };
  return store;
}

const outageLines = (lines: Record<string, unknown>[]) => lines.filter((line) => line.loop === "test loop");

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a step outside an outage", () => {
  it("runs once and logs nothing", async () => {
    const { log, lines } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log });
    expect(await retry.run(store.step("row"))).toBe("row");
    expect(store.tries).toHaveLength(1);
    expect(outageLines(lines)).toEqual([]);
    expect(retry.outage).toBeUndefined();
  });

  it("an error that is not an outage goes to the caller at once: no retry, no outage logged", async () => {
    const { log, lines } = captureLog();
    const retry = new OutageRetry({ name: "test loop", log });
    const constraint = Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" });
    const step = vi.fn(async () => {
      throw constraint;
    });
    await expect(retry.run(step)).rejects.toBe(constraint);
    expect(step).toHaveBeenCalledTimes(1);
    expect(outageLines(lines)).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("an outage of the store", () => {
  it("no row is dropped: every step is retried until the store is back, and returns its own result", async () => {
    const { log } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log });
    store.down = true;
    const rows = Array.from({ length: 50 }, (_, i) => retry.run(store.step(`row ${i}`)));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(retry.outage).toBeDefined();
    store.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await Promise.all(rows)).toEqual(Array.from({ length: 50 }, (_, i) => `row ${i}`));
    expect(retry.outage).toBeUndefined();
  });

  it("is logged once when it begins (with its first error) and once when it ends (failed tries, duration), not per row", async () => {
    const { log, lines } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log });
    store.down = true;
    const started = Date.now();
    const rows = Array.from({ length: 50 }, (_, i) => retry.run(store.step(i)));
    await vi.advanceTimersByTimeAsync(30_000);
    store.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(rows);
    const failed = store.tries.length - 50;
    const [begun, ended, ...more] = outageLines(lines);
    expect(more).toEqual([]);
    expect(begun).toMatchObject({
      level: 40,
      reason: "unreachable",
      code: "ECONNREFUSED",
      error: "connect ECONNREFUSED 127.0.0.1:5432",
      msg: "test loop: store unavailable, retrying until it is back",
    });
    expect(ended).toMatchObject({ level: 30, failedTries: failed, msg: "test loop: store available again" });
    const lastFailure = store.tries.at(-51) ?? 0;
    expect(ended?.outageMs).toBeGreaterThan(lastFailure - started);
    expect(ended?.outageMs).toBeLessThanOrEqual(35_000);
  });

  it("one step tries at a time while it lasts, at most one try per wait, however many rows wait", async () => {
    const { log } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log, minDelayMs: 100, maxDelayMs: 5_000 });
    store.down = true;
    const rows = Array.from({ length: 200 }, (_, i) => retry.run(store.step(i, 5)));
    await vi.advanceTimersByTimeAsync(10);
    // The first tries were under way before anyone knew of the outage: all of them, once.
    expect(store.tries).toHaveLength(200);
    store.mostAtOnce = 0;
    await vi.advanceTimersByTimeAsync(60_000);
    const probes = store.tries.slice(200);
    expect(store.mostAtOnce).toBe(1);
    // Waits of 100 ms doubling to 5 s: about 19 tries in a minute, never one per row.
    expect(probes.length).toBeGreaterThan(5);
    expect(probes.length).toBeLessThanOrEqual(60_000 / 100);
    store.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(rows);
  });

  it("the waits double from the floor to the ceiling, each random between half its ceiling and the ceiling", async () => {
    for (const random of [() => 0, () => 0.999_999, Math.random]) {
      const { log } = captureLog();
      const store = fakeStore();
      const retry = new OutageRetry({ name: "test loop", log, minDelayMs: 100, maxDelayMs: 5_000, random });
      store.down = true;
      const row = retry.run(store.step("row"));
      await vi.advanceTimersByTimeAsync(120_000);
      store.down = false;
      await vi.advanceTimersByTimeAsync(5_000);
      await row;
      const waits = store.tries.slice(1).map((at, i) => at - (store.tries[i] ?? 0));
      waits.forEach((wait, i) => {
        const ceiling = Math.min(5_000, 100 * 2 ** i);
        expect(wait).toBeGreaterThanOrEqual(Math.max(100, ceiling / 2));
        expect(wait).toBeLessThanOrEqual(Math.ceil(ceiling));
      });
      // The ceiling is reached and never passed.
      expect(Math.max(...waits)).toBeGreaterThanOrEqual(2_500);
      expect(Math.max(...waits)).toBeLessThanOrEqual(5_000);
    }
  });

  it("recovery: the first try that succeeds lets every waiting step go at once", async () => {
    const { log } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log, random: () => 0 });
    store.down = true;
    const done: number[] = [];
    const rows = Array.from({ length: 20 }, (_, i) => retry.run(store.step(i)).then((value) => done.push(value)));
    await vi.advanceTimersByTimeAsync(1_000);
    store.down = false;
    // The next probe is due within one wait at most (5 s); after it nothing waits for a timer.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(done).toHaveLength(20);
    await Promise.all(rows);
  });

  it("a try that began before the outage and succeeds during it does not end it", async () => {
    const { log, lines } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log });
    const slow = retry.run(store.step("slow", 1_000));
    store.down = true;
    // A read that was already past the database when it went away, answering late.
    const slowStep = vi.fn(async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return "answered before the cut";
    });
    const early = retry.run(slowStep);
    const failing = retry.run(store.step("row"));
    await vi.advanceTimersByTimeAsync(10);
    expect(retry.outage).toBeDefined();
    await vi.advanceTimersByTimeAsync(600);
    expect(await early).toBe("answered before the cut");
    expect(retry.outage).toBeDefined();
    expect(outageLines(lines)).toHaveLength(1);
    store.down = false;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await failing).toBe("row");
    expect(await slow).toBe("slow");
    expect(outageLines(lines)).toHaveLength(2);
  });

  it("a waiting step whose own error is not an outage gets it; the next one tries at once", async () => {
    const { log } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log });
    store.down = true;
    const bug = new TypeError("row.body is undefined");
    let buggyTries = 0;
    const buggy = retry
      .run(async () => {
        buggyTries++;
        if (buggyTries === 1) throw refused();
        throw bug;
      })
      .catch((error: unknown) => error);
    const healthy = retry.run(store.step("row"));
    await vi.advanceTimersByTimeAsync(10);
    store.down = false;
    await vi.advanceTimersByTimeAsync(150);
    expect(await buggy).toBe(bug);
    // Handed over without another wait: the store answered the buggy step, it may well be back.
    expect(await healthy).toBe("row");
  });

  it("a probe failing otherwise with nobody else waiting: the next step tries at once, it is not stranded", async () => {
    const { log } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log });
    store.down = true;
    const bug = new TypeError("row.body is undefined");
    let tries = 0;
    const lone = retry
      .run(async () => {
        tries++;
        if (tries === 1) throw refused();
        throw bug;
      })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await lone).toBe(bug);
    expect(retry.outage).toBeDefined();
    store.down = false;
    const next = retry.run(store.step("next"));
    await vi.advanceTimersByTimeAsync(0);
    expect(await next).toBe("next");
    expect(retry.outage).toBeUndefined();
  });

  it("a second outage after a recovery is logged again, on its own", async () => {
    const { log, lines } = captureLog();
    const store = fakeStore();
    const retry = new OutageRetry({ name: "test loop", log });
    for (const round of [1, 2]) {
      store.down = true;
      const row = retry.run(store.step(round));
      await vi.advanceTimersByTimeAsync(1_000);
      store.down = false;
      await vi.advanceTimersByTimeAsync(5_000);
      expect(await row).toBe(round);
    }
    expect(outageLines(lines).map((line) => line.msg)).toEqual([
      "test loop: store unavailable, retrying until it is back",
      "test loop: store available again",
      "test loop: store unavailable, retrying until it is back",
      "test loop: store available again",
    ]);
  });
});

describe("what readiness and metrics follow", () => {
  it("onChange hears an outage begin (its reason) and end, once each", async () => {
    const { log } = captureLog();
    const store = fakeStore();
    const changes: unknown[] = [];
    const retry = new OutageRetry({ name: "test loop", log, onChange: (outage) => changes.push(outage) });
    store.down = true;
    const rows = Array.from({ length: 10 }, (_, i) => retry.run(store.step(i)));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(changes).toEqual([{ since: expect.any(Number), reason: "unreachable", failedTries: 1 }]);
    expect(retry.outage?.failedTries).toBeGreaterThan(10);
    store.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(rows);
    expect(changes).toHaveLength(2);
    expect(changes[1]).toBeUndefined();
  });
});

describe("closing the loop during an outage", () => {
  it("waiting steps reject with OutageRetryClosedError (the outage's error as its cause), and no timer is left", async () => {
    const { log } = captureLog();
    const store = fakeStore();
    const closing = new AbortController();
    const retry = new OutageRetry({ name: "test loop", log, signal: closing.signal });
    store.down = true;
    const rows = Array.from({ length: 3 }, (_, i) => retry.run(store.step(i)).catch((error: unknown) => error));
    await vi.advanceTimersByTimeAsync(1_000);
    closing.abort();
    const errors = await Promise.all(rows);
    for (const error of errors) {
      expect(error).toBeInstanceOf(OutageRetryClosedError);
      expect(error).toMatchObject({ code: "retry_closed", cause: { code: "ECONNREFUSED" } });
    }
    expect(vi.getTimerCount()).toBe(0);
    // A step after the close meets the outage at once: it neither waits nor tries.
    const tries = store.tries.length;
    await expect(retry.run(store.step("late"))).rejects.toBeInstanceOf(OutageRetryClosedError);
    expect(store.tries.length).toBe(tries);
    // Closed with no outage known, a step is tried once (a last flush at shutdown), and a failure is not waited out.
    const flush = () => new OutageRetry({ name: "test loop", log, signal: closing.signal }).run(store.step("flush"));
    await expect(flush()).rejects.toBeInstanceOf(OutageRetryClosedError);
    expect(store.tries.length).toBe(tries + 1);
    store.down = false;
    expect(await flush()).toBe("flush");
    expect(vi.getTimerCount()).toBe(0);
  });
});
