import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { evaluatorEntry } from "../../../src/gateway/profiles/evaluator-entry.js";
import {
  EngineClosedError,
  EngineOverloadedError,
  type MapInput,
  ProfileEngine,
  type ProfileKind,
} from "../../../src/gateway/profiles/index.js";
import { threadCpuMs } from "../../../src/gateway/profiles/thread-cpu.js";

/** One worker, a queue of two, a 30 ms deadline grace and no suspect lane (its own tests): each rule is quick to reach. */
let engine: ProfileEngine;
beforeAll(async () => {
  engine = new ProfileEngine({ poolSize: 1, maxQueue: 2, deadlineGraceMs: 30, suspectForMs: 0 });
  await engine.ready();
});
afterAll(() => engine.close());

const input = (expression: string, versionId = "v1"): MapInput => ({
  versionId,
  kind: "outbound",
  expression,
  payload: { name: "Ann" },
});
/** $distinct compares every pair inside one call: a worker busy for as long as its deadline allows. */
const STUCK = '{"x": $count($distinct([1..90000]))}';

describe("engine: the evaluator's code, bundled (test/gateway/profiles/evaluator-permissions.test.ts)", () => {
  it("has started its workers from this source tree", () => {
    expect(engine.stats().pool).toMatchObject({ workers: 1, ready: 1, busy: 0, queued: 0 });
  });
});

describe("engine: compiled expressions are cached per version id", () => {
  it("never runs a stale expression when a version id comes back with different text", async () => {
    expect(await engine.map(input('{"v": 1}'))).toMatchObject({ ok: true, body: { v: 1 } });
    expect(await engine.map(input('{"v": 2}'))).toMatchObject({ ok: true, body: { v: 2 } });
  });
});

describe("engine: time limits", () => {
  it("honours a per-evaluation time limit", async () => {
    const outcome = await engine.map(input("($f := function() { $f() }; $f())", "loop"), { timeoutMs: 5 });
    expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
    expect(outcome.ok === false && outcome.message).toMatch(/after 5 milliseconds/);
  });

  it("kills a worker at the time limit plus the configured grace, and replaces it", async () => {
    const outcome = await engine.map(input(STUCK, "stuck"), { timeoutMs: 20 });
    expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "deadline" });
    expect(outcome.ok === false && outcome.message).toMatch(/within 50 ms/);
    expect(await engine.map(input('{"v": 3}'))).toMatchObject({ ok: true, body: { v: 3 } });
    expect(engine.stats().pool.restarts).toBe(1);
  });

  it("sends a job that was waiting behind a killed evaluation to a fresh worker, unharmed", async () => {
    await engine.ready();
    // Sent together: under load the second waits in the same worker's pipe (see PIPELINE_DEPTH in pool.ts).
    const [stuck, behind] = await Promise.all([
      engine.map(input(STUCK, "stuck"), { timeoutMs: 20 }),
      engine.map(input('{"behind": true}', "behind")),
    ]);
    expect(stuck).toMatchObject({ ok: false, kind: "guardrail", limit: "deadline" });
    expect(behind).toMatchObject({ ok: true, body: { behind: true } });
  });

  it("rejects a kind it does not know", async () => {
    await expect(engine.map({ ...input("{}"), kind: "contractor" as ProfileKind })).rejects.toThrow(
      /unknown profile kind/,
    );
  });
});

describe("engine: bounded queue and shutdown", () => {
  it("refuses an evaluation beyond the queue bound with EngineOverloadedError", async () => {
    await engine.ready();
    const busy = engine.map(input(STUCK, "stuck"), { timeoutMs: 50 });
    // Past the pipelining window (2 ms, pool.ts): nothing more is sent to the busy worker, the next two wait in the
    // queue.
    await vi.waitUntil(() => sharedPool(engine).runningLonger("stuck", 5), { timeout: 1_000, interval: 1 });
    const queued = [engine.map(input('{"a": 1}')), engine.map(input('{"a": 2}'))];
    await expect(engine.map(input('{"a": 3}'))).rejects.toBeInstanceOf(EngineOverloadedError);
    await busy;
    expect(await Promise.all(queued)).toMatchObject([{ ok: true }, { ok: true }]);
  });

  it("finishes running evaluations, fails queued ones, and refuses new ones once closed", async () => {
    await engine.ready();
    const running = engine.map(input(STUCK, "stuck"), { timeoutMs: 50 });
    const queued = engine.map(input('{"a": 1}'));
    const closing = engine.close();
    await expect(queued).rejects.toBeInstanceOf(EngineClosedError);
    expect(await running).toMatchObject({ ok: false, kind: "guardrail" });
    await closing;
    await expect(engine.map(input('{"a": 1}'))).rejects.toBeInstanceOf(EngineClosedError);
  });
});

describe("engine: an overloaded machine is not a runaway profile", () => {
  const evaluator = new Evaluator();

  it("reports a time limit reached while waiting for CPU as starved, not as the profile's guardrail breach", async () => {
    const request = {
      id: 1,
      versionId: "starved",
      kind: "outbound" as const,
      expression: '{"a": name, "b": name & "!"}',
    };
    await evaluator.evaluate({ ...request, payload: { name: "warm-up" }, timeoutMs: 1_000 });
    // Reading `name` blocks this thread for 300 ms without using CPU, as a descheduled process would be.
    const payload = {
      get name() {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
        return "Ann";
      },
    };
    const reply = await evaluator.evaluate({ ...request, payload, timeoutMs: 200 });
    expect(reply).toMatchObject({ ok: false, kind: "starved" });
  });

  it("still reports a runaway that burned its time as a time guardrail", async () => {
    const reply = await evaluator.evaluate({
      id: 2,
      versionId: "spin",
      kind: "outbound",
      expression: "($f := function($i) { $f($i + 1) }; $f(0))",
      payload: {},
      timeoutMs: 20,
    });
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
  });

  it("runs a version's first evaluation once more, warm, when it ran out of time cold on a busy machine (D-379)", async () => {
    const request = { kind: "outbound" as const, expression: '{"a": name, "b": name & "!"}', timeoutMs: 40 };
    // The first read of `name` is what a cold run on a busy machine looks like: 60 ms waiting for a core (no CPU), then
    // 8 ms of CPU (V8 compiling the version's code) — over a twentieth of the limit (not starved), under half of it.
    const coldOnce = () => {
      let reads = 0;
      return {
        get name() {
          if (reads++ === 0) {
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60);
            const start = threadCpuMs();
            while (threadCpuMs() - start < 8);
          }
          return "Ann";
        },
      };
    };
    // The control: the same payload given to a version already evaluated here is judged as it is.
    await evaluator.evaluate({ ...request, id: 3, versionId: "warm", payload: { name: "warm-up" } });
    const warm = await evaluator.evaluate({ ...request, id: 4, versionId: "warm", payload: coldOnce() });
    expect(warm).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
    const cold = await evaluator.evaluate({ ...request, id: 5, versionId: "cold", payload: coldOnce() });
    expect(cold).toMatchObject({ ok: true, body: { a: "Ann", b: "Ann!" } });
  });

  it.runIf(process.platform === "linux")(
    "times a cold first run's second run anew: a runaway on a busy machine is judged, not killed at the deadline (D-379)",
    async () => {
      const others = workerPids();
      const busy = new ProfileEngine({ poolSize: 1, suspectForMs: 0 });
      try {
        await busy.ready();
        const [pid] = workerPids().filter((p) => !others.includes(p));
        const cpuTicks = () => {
          const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
          return Number(fields[11]) + Number(fields[12]);
        };
        // A cooperative runaway (JSONata checks its limit at every step): 400,000 calls, far past 200 ms.
        const spin = input("($loop := function($n) { $n > 0 ? $loop($n - 1) : 0 }; [1..1000].$loop(400))", "spin");
        const idle = cpuTicks();
        const pending = busy.map(spin, { timeoutMs: 200 });
        // Time itself is the test: once it is running, the machine gets busy (the evaluator is stopped for 140 ms, as a
        // process waiting for a core would be), then it runs to its limit —
        // over a twentieth of the limit as CPU (not starved), under half of it (not a runaway with a core to itself).
        await vi.waitUntil(() => cpuTicks() > idle, { timeout: 5_000, interval: 1 });
        process.kill(Number(pid), "SIGSTOP");
        await new Promise((r) => setTimeout(r, 140));
        process.kill(Number(pid), "SIGCONT");
        // Cold, it runs again, past the hard deadline of its first start (limit plus 100 ms, with over a tenth of that
        // as CPU). Timed from the second run's start, it is judged by its own limit instead of being killed.
        const outcome = await pending;
        expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
        expect(outcome.elapsedMs).toBeGreaterThan(300);
        expect(busy.stats().pool.restarts).toBe(0);
      } finally {
        await busy.close();
      }
    },
  );

  it.runIf(process.platform === "linux")(
    "gives a stopped (starved) worker more time instead of killing it at the deadline",
    async () => {
      const others = workerPids();
      const starved = new ProfileEngine({ poolSize: 1, deadlineGraceMs: 30, suspectForMs: 0 });
      try {
        await starved.ready();
        const mine = workerPids().filter((p) => !others.includes(p));
        expect(mine).toHaveLength(1);
        const [pid] = mine;
        process.kill(Number(pid), "SIGSTOP");
        // A deadline of 230 ms: the worker's own background CPU after start-up (JIT, GC) stays well below a tenth.
        const pending = starved.map(input('{"ok": true}'), { timeoutMs: 200 });
        // Time itself is the test: three deadlines pass while the worker is stopped (and so starved of CPU).
        await new Promise((r) => setTimeout(r, 700));
        process.kill(Number(pid), "SIGCONT");
        expect(await pending).toMatchObject({ ok: true, body: { ok: true } });
        expect(starved.stats().pool.restarts).toBe(0);
      } finally {
        await starved.close();
      }
    },
  );
});

/** The engine's shared evaluator pool (its own lanes aside), for what only the pool knows. */
function sharedPool(of: ProfileEngine): { runningLonger(versionId: string, ms: number): boolean } {
  return (of as unknown as { pool: { runningLonger(versionId: string, ms: number): boolean } }).pool;
}

/** This process's evaluator children. */
function workerPids(): number[] {
  return execSync(`ps --ppid ${process.pid} -o pid=,args=`)
    .toString()
    .split("\n")
    .filter((line) => line.includes(evaluatorEntry().modulePath))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
