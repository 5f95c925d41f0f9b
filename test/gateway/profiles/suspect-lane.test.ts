import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  EngineOverloadedError,
  loadProfileDir,
  type MappingOutcome,
  ProfileEngine,
} from "../../../src/gateway/profiles/index.js";
import { LIMITS } from "../../../src/gateway/profiles/limits.js";

const RUNAWAY_DIR = "profiles/_attacks/runaway-retry-loop";
const realPayload = async () => JSON.parse(await readFile(`${RUNAWAY_DIR}/payloads/runaway.json`, "utf8")) as unknown;
const benign = {
  name: "Olivia Brooks",
  email: "olivia.brooks@example.com",
  phone: "512-555-0142",
  address: "12 Shoal Creek Blvd, Austin, TX 78701",
  attempt: 1,
};

const engines: ProfileEngine[] = [];
const newEngine = (options: ConstructorParameters<typeof ProfileEngine>[0]) => {
  const engine = new ProfileEngine({ poolSize: 1, ...options });
  engines.push(engine);
  return engine;
};
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

/** The engine's shared evaluator pool (its lanes aside), for what only the pool knows. */
const sharedPool = (of: ProfileEngine) =>
  (of as unknown as { pool: { runningLonger(versionId: string, ms: number): boolean } }).pool;

const timeLimitOf = (outcome: MappingOutcome) =>
  outcome.ok === false && outcome.kind === "guardrail"
    ? /after (\d+) milliseconds/.exec(outcome.message)?.[1]
    : undefined;

describe("suspect lane: a version that breached a guardrail is isolated with a smaller time limit", () => {
  it("runs the version's next evaluations on its own lane with the suspect limit, refusing it when that lane is full", async () => {
    const engine = newEngine({ suspectForMs: 60_000, suspectTimeoutMs: 10 });
    const profile = await loadProfileDir(RUNAWAY_DIR);
    const payload = await realPayload();
    expect(timeLimitOf(await engine.map({ ...profile, payload }))).toBe("50");
    expect(timeLimitOf(await engine.map({ ...profile, payload }))).toBe("10");
    expect(await engine.map({ ...profile, payload: benign })).toMatchObject({ ok: true });
    expect(engine.stats().suspectLane?.workers).toBe(1);
    // Its lane is small on purpose: a burst of the suspect version is refused, everyone else is not.
    const burst = await Promise.allSettled(Array.from({ length: 16 }, () => engine.map({ ...profile, payload })));
    // Refused unevaluated: an overload (503, retry later), never a mapping failure charged to the payload.
    const refused = burst.filter((o) => o.status === "rejected" && o.reason instanceof EngineOverloadedError);
    // One running, at most one waiting in the worker's pipe, eight in the lane's queue: the rest are refused.
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(await engine.map({ ...profile, versionId: "another-version", payload: benign })).toMatchObject({ ok: true });
  });

  it("sends a version to its lane while one of its evaluations runs longer than the suspect limit", async () => {
    // A suspect limit of 200 ms, not 10: an evaluation counts towards probation when it is quick in wall time or CPU
    // (D-380), and on an overloaded virtual machine even a benign one's CPU reading has reached 7.6 ms.
    const engine = newEngine({ poolSize: 2, suspectForMs: 60_000, suspectTimeoutMs: 200 });
    await engine.ready();
    const profile = await loadProfileDir(RUNAWAY_DIR);
    const payload = await realPayload();
    // Past its probation: quick on real payloads so far.
    for (let i = 0; i < LIMITS.probationEvaluations; i++) await engine.map({ ...profile, payload: benign });
    // A long limit (as below), so that the checks find the first still running even on a loaded machine: a 50 ms one
    // could end, on a starved evaluator, between two looks of the poll; and a CI machine running two files at once
    // has been seen to take over a second to start it.
    const slow = { timeoutMs: 4_000 };
    const first = engine.map({ ...profile, payload }, slow);
    await vi.waitUntil(() => sharedPool(engine).runningLonger(profile.versionId, 200), { timeout: 3_500, interval: 1 });
    // The first has not breached yet but has run past the suspect limit: the second must not take shared worker two.
    const second = engine.map({ ...profile, payload }, slow);
    // Dispatched after this turn of the event loop: polled until both are running, each where it should.
    await expect.poll(() => engine.stats()).toMatchObject({ pool: { busy: 1 }, suspectLane: { busy: 1 } });
    // Not yet proven guilty, so it keeps the full limit.
    expect(timeLimitOf(await first)).toBe("4000");
    // The second keeps it too, unless a machine this busy starved the niced lane: starved is retried, and by then the
    // first has breached, so the retry runs with the suspect limit. Either way never a shared worker.
    expect(["4000", "200"]).toContain(timeLimitOf(await second));
  });

  it("keeps a version on probation (on the lane, full limit) until enough real payloads ran quickly; samples do not count", async () => {
    // 200 ms: "quickly" is within the suspect limit (wall time or CPU), which a loaded machine may stretch past 10 ms.
    const engine = newEngine({ poolSize: 2, suspectForMs: 60_000, suspectTimeoutMs: 200 });
    await engine.ready();
    const profile = await loadProfileDir(RUNAWAY_DIR);
    // It passes its golden samples, as often as one likes: that proves nothing about real payloads.
    for (let i = 0; i < 2 * LIMITS.probationEvaluations; i++) {
      expect(await engine.map({ ...profile, payload: benign }, { sample: true })).toMatchObject({ ok: true });
    }
    // Its first real payloads run away: on the lane, never on a shared worker, with the full limit.
    const payload = await realPayload();
    // (A long limit, so that the checks below find them running even on a loaded machine.)
    const slow = { timeoutMs: 1_000 };
    const burst = [engine.map({ ...profile, payload }, slow), engine.map({ ...profile, payload }, slow)];
    await expect.poll(() => engine.stats()).toMatchObject({ pool: { busy: 0 }, suspectLane: { busy: 1 } });
    expect(timeLimitOf((await Promise.all(burst))[0] as MappingOutcome)).toBe("1000");

    // A version whose real payloads run quickly leaves probation after a few and runs on the shared pool.
    const fresh = { ...profile, versionId: `${profile.versionId}-fresh` };
    for (let i = 0; i < LIMITS.probationEvaluations; i++) await engine.map({ ...fresh, payload: benign });
    const running = engine.map({ ...fresh, payload }, slow);
    await expect.poll(() => engine.stats()).toMatchObject({ pool: { busy: 1 }, suspectLane: { busy: 0 } });
    await running;
  });

  it("counts an evaluation towards probation by its own CPU, not by the wall time of a first compile (D-380)", async () => {
    const engine = newEngine({ poolSize: 1, suspectForMs: 60_000, suspectTimeoutMs: 20 });
    await engine.ready();
    const proven = (versionId: string) =>
      (engine as unknown as { proven: { get(id: string): number | undefined } }).proven.get(versionId) ?? 0;
    // A version whose first evaluation in an evaluator spends tens of milliseconds compiling (a long function it never
    // calls), then maps in well under a millisecond: its first evaluation's wall time is the compile's.
    const unused = Array.from({ length: 6_000 }, (_, i) => `"f${i}": $uppercase(name) & "${i}"`).join(", ");
    const expression = `( $unused := function($x) { { ${unused} } }; { "fullName": name, "email": email, "phone": phone, "address": address } )`;
    const version = { versionId: "compiled-slowly", kind: "lead" as const, expression };
    // A limit no busy machine reaches: quick or not is judged by the suspect limit (20 ms), never by this one, and the
    // default one's hard deadline (its limit plus 100 ms of wall time) killed the first evaluation on a loaded CI.
    const roomy = { timeoutMs: 2_000 };
    const first = await engine.map({ ...version, payload: benign }, roomy);
    expect(first, JSON.stringify(first).slice(0, 300)).toMatchObject({ ok: true });
    // What makes this test mean something: by wall time alone, the first evaluation would not have counted.
    expect(first.elapsedMs).toBeGreaterThanOrEqual(20);
    expect(proven(version.versionId)).toBe(1);
    for (let i = 1; i < LIMITS.probationEvaluations; i++) await engine.map({ ...version, payload: benign }, roomy);
    expect(proven(version.versionId)).toBe(LIMITS.probationEvaluations);
    // The control: a runaway's evaluations spend their CPU, and none of them counts.
    const runaway = await loadProfileDir(RUNAWAY_DIR);
    const payload = await realPayload();
    expect(await engine.map({ ...runaway, payload }, { timeoutMs: 60 })).toMatchObject({
      ok: false,
      kind: "guardrail",
    });
    expect(proven(runaway.versionId)).toBe(0);
  });

  it("lets the version back on the main pool once it has been clean for the suspect period", async () => {
    const engine = newEngine({ suspectForMs: 100, suspectTimeoutMs: 10 });
    const profile = await loadProfileDir(RUNAWAY_DIR);
    const payload = await realPayload();
    await engine.map({ ...profile, payload });
    // Time itself is the test: the suspect period (100 ms) runs out without another breach.
    await new Promise((r) => setTimeout(r, 150));
    expect(timeLimitOf(await engine.map({ ...profile, payload }))).toBe("50");
  });

  it("runs the lane's evaluator at a lower scheduling priority, so a runaway gets only spare CPU", async () => {
    const engine = newEngine({ poolSize: 1, suspectForMs: 60_000 });
    await engine.ready();
    const pids = (pool: unknown) =>
      (pool as { slots: { worker: { pid?: number } }[] }).slots.map((slot) => slot.worker.pid ?? 0);
    const internals = engine as unknown as { pool: unknown; suspectLane: unknown };
    const niceOf = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    };
    if (process.platform !== "linux") return;
    expect(pids(internals.pool).map(niceOf)).toEqual([0]);
    expect(pids(internals.suspectLane).map(niceOf)).toEqual([LIMITS.suspectNice]);
  });

  it("is off with suspectForMs 0: every evaluation gets the full limit", async () => {
    const engine = newEngine({ suspectForMs: 0 });
    const profile = await loadProfileDir(RUNAWAY_DIR);
    const payload = await realPayload();
    await engine.map({ ...profile, payload });
    expect(timeLimitOf(await engine.map({ ...profile, payload }))).toBe("50");
    expect(engine.stats().suspectLane).toBeUndefined();
  });
});
