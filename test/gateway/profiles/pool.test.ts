import { afterEach, describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/gateway/profiles/limits.js";
import { EvaluatorPool } from "../../../src/gateway/profiles/pool.js";
import type { EvaluateRequest } from "../../../src/gateway/profiles/protocol.js";

const pools: EvaluatorPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function newPool(pipelineDepth?: number) {
  const pool = new EvaluatorPool({
    name: "test",
    size: 1,
    maxQueue: 64,
    deadlineGraceMs: LIMITS.deadlineGraceMs,
    heapMb: LIMITS.evaluatorHeapMb,
    compiledCacheSize: 10,
    ...(pipelineDepth ? { pipelineDepth } : {}),
  });
  pools.push(pool);
  // Count the writes to the worker.
  const slot = (pool as unknown as { slots: { worker: { send(requests: EvaluateRequest[]): void } }[] }).slots[0];
  const writes: number[] = [];
  if (slot) {
    const send = slot.worker.send.bind(slot.worker);
    slot.worker.send = (requests) => {
      writes.push(requests.length);
      send(requests);
    };
  }
  return { pool, writes };
}

const job = (name: string) => ({
  versionId: "v1",
  kind: "outbound" as const,
  expression: '{"greeting": "hello " & name}',
  payload: { name },
  timeoutMs: 1_000,
});

describe("evaluator pool: batching writes to a busy worker", () => {
  it("sends the jobs that arrive in one turn while the worker is busy in one write, and answers each", async () => {
    const { pool, writes } = newPool();
    await pool.ready();
    const first = pool.run(job("first"));
    const rest = ["a", "b", "c", "d", "e"].map((name) => pool.run(job(name)));
    const replies = await Promise.all([first, ...rest]);
    expect(replies.map((reply) => (reply.ok && "body" in reply ? reply.body : reply))).toEqual([
      { greeting: "hello first" },
      { greeting: "hello a" },
      { greeting: "hello b" },
      { greeting: "hello c" },
      { greeting: "hello d" },
      { greeting: "hello e" },
    ]);
    // The idle worker took the first at once; the five that arrived while it was busy travelled together.
    expect(writes[0]).toBe(1);
    expect(writes.reduce((sum, n) => sum + n, 0)).toBe(6);
    expect(writes.length).toBeLessThanOrEqual(3);
  });

  it("never puts more than the pipeline depth in one worker's pipe", async () => {
    const { pool, writes } = newPool(3);
    await pool.ready();
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.run(job(`n${i}`))));
    expect(replies.every((reply) => reply.ok)).toBe(true);
    expect(Math.max(...writes)).toBeLessThanOrEqual(3);
  });
});

/** A pool of two evaluators, started. */
async function twoWorkers(): Promise<EvaluatorPool> {
  const pool = new EvaluatorPool({
    name: "test",
    size: 2,
    maxQueue: 64,
    deadlineGraceMs: LIMITS.deadlineGraceMs,
    heapMb: LIMITS.evaluatorHeapMb,
    compiledCacheSize: 10,
  });
  pools.push(pool);
  await pool.ready();
  return pool;
}

describe("evaluator pool: one version's burst holds one worker while others have work", () => {
  it("leaves a worker to the other tenants when a runaway's requests arrive together", async () => {
    const pool = await twoWorkers();
    // A tail-recursive countdown that only the time limit stops (as profiles/_attacks/runaway-retry-loop).
    const runaway = {
      versionId: "runaway",
      kind: "outbound" as const,
      expression: '($f := function($n) { $n <= 0 ? 0 : $f($n - 1) }; {"x": $f(1e15)})',
      payload: {},
      timeoutMs: 1_000,
    };
    const busy = pool.run(job("busy"));
    const burst = [1, 2, 3].map(() => pool.run(runaway));
    const started = performance.now();
    const other = await pool.run(job("other"));
    const waitedMs = performance.now() - started;
    expect(other).toMatchObject({ ok: true, body: { greeting: "hello other" } });
    // Behind a runaway it would have waited for the time limit (1 s).
    expect(waitedMs).toBeLessThan(600);
    expect(await busy).toMatchObject({ ok: true });
    for (const reply of await Promise.all(burst)) expect(reply).toMatchObject({ ok: false, kind: "guardrail" });
  });
});

describe("evaluator pool: jobs stuck in a pipe behind a runaway are rescued", () => {
  it("sends a job waiting behind a long evaluation to the next free worker, and answers it once", async () => {
    const pool = await twoWorkers();
    const loop = (versionId: string, timeoutMs: number) => ({
      versionId,
      kind: "outbound" as const,
      expression: '($f := function($n) { $n <= 0 ? 0 : $f($n - 1) }; {"x": $f(1e15)})',
      payload: {},
      timeoutMs,
    });
    // Each worker gets a runaway; the job that follows at once is pipelined behind the first (1 s).
    const long = pool.run(loop("long", 1_000));
    const short = pool.run(loop("short", 60));
    const started = performance.now();
    const stuck = await pool.run(job("stuck"));
    const waitedMs = performance.now() - started;
    expect(stuck).toMatchObject({ ok: true, body: { greeting: "hello stuck" } });
    // Rescued when the short runaway's worker came free (~60 ms), not after the long one's 1 s.
    expect(waitedMs).toBeLessThan(600);
    expect(await long).toMatchObject({ ok: false, kind: "guardrail" });
    expect(await short).toMatchObject({ ok: false, kind: "guardrail" });
  });
});
