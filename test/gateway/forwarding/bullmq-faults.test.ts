import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { postJson } from "../../helpers/gateway.js";
import { redisForTests, redisServerForTests, startRedisServer } from "../../helpers/redis.js";
import { attemptRows, submissionRows } from "../../helpers/store-reads.js";

/**
 * BullMQ driver: the database is the source of truth, so neither Redis losing everything (FLUSHALL, a
 * restart without persistence) nor a worker process dying (SIGKILL) or leaving (SIGTERM) loses a submission, and the
 * limits hold across a change of dispatcher. Flush and restart run on a redis-server of the test's own.
 */
const ownRedis = await redisServerForTests();
const sharedRedis = await redisForTests();

const LIMITS = { perKey: 10, perCompany: 20, egress: 30, windowMs: 1_000 };

async function burst(rig: Rig, count: number): Promise<string[]> {
  const company = await rig.addCompany(`Burst ${count}`, 3);
  const posts = Array.from({ length: count }, (_, i) =>
    postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": company.vendorKeys[i % 3] ?? "" }),
  );
  const answers = await Promise.all(posts);
  return Promise.all(answers.map(async (r) => ((await r.json()) as { submissionId: string }).submissionId));
}

/** Every submission forwarded, each with exactly one successful attempt (nothing lost, nothing sent twice in effect). */
async function expectAllForwardedOnce(rig: Rig, ids: string[], timeoutMs = 30_000): Promise<void> {
  await until(
    async () => (await submissionRows(rig.gateway, ids)).filter((r) => r.status === "forwarded").length === ids.length,
    timeoutMs,
    100,
  );
  for (const id of ids) {
    const ok = (await attemptRows(rig.gateway, [id])).filter((a) => a.status === 201 || a.status === 200);
    expect(ok.length, id).toBeGreaterThanOrEqual(1);
  }
}

/**
 * Resolves once `atLeast` of `ids` are forwarded — a fault injected then meets a drain under way — and checks some
 * are still to go (positive control: the fault does not come after the drain). The count forwarded.
 */
async function midDrain(rig: Rig, ids: string[], atLeast: number): Promise<number> {
  const forwarded = await until(
    async () => {
      const n = (await submissionRows(rig.gateway, ids)).filter((r) => r.status === "forwarded").length;
      return n >= atLeast ? n : undefined;
    },
    15_000,
    50,
  );
  expect(forwarded).toBeLessThan(ids.length);
  return forwarded;
}

describe.skipIf(!ownRedis)("BullMQ driver: Redis loses its data mid-drain (own redis-server)", () => {
  it("FLUSHALL mid-drain loses nothing and keeps the limits", async () => {
    const redis = await startRedisServer();
    const rig = await startRig({ ...LIMITS, driver: "bullmq", redisUrl: redis.url });
    try {
      const ids = await burst(rig, 60);
      await midDrain(rig, ids, 10);
      expect(await redis.command("FLUSHALL")).toBe("OK");
      await expectAllForwardedOnce(rig, ids);
      expect(rig.sandbox.admin.stats().traffic.totals.limited).toBe(0);
    } finally {
      await rig.close();
      await redis.stop();
    }
  });

  it("a restart of Redis without persistence mid-drain loses nothing", async () => {
    const redis = await startRedisServer();
    const rig = await startRig({ ...LIMITS, driver: "bullmq", redisUrl: redis.url });
    try {
      const ids = await burst(rig, 60);
      await midDrain(rig, ids, 10);
      await redis.restart();
      // Accepted while Redis was away or just back: its notice may be lost, the reconciler finds it.
      ids.push(...(await burst(rig, 10)));
      await expectAllForwardedOnce(rig, ids);
    } finally {
      await rig.close();
      await redis.stop();
    }
  });
});

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

async function startWorkerProcess(rig: Rig): Promise<{ child: ChildProcess; instanceId: string }> {
  const limits = {
    perCredential: { limit: LIMITS.perKey, windowMs: LIMITS.windowMs },
    perCompany: { limit: LIMITS.perCompany, windowMs: LIMITS.windowMs },
    egress: { limit: LIMITS.egress, windowMs: LIMITS.windowMs },
    marginMs: 1,
  };
  const args = [rig.databasePath, rig.sandbox.url, rig.redis.url, rig.redis.prefix, rig.masterKey];
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/gateway/forwarding/crash/worker-process.ts", ...args, JSON.stringify(limits)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  const info = await new Promise<{ instanceId: string }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`worker process exited with ${code}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (line) =>
      resolve(JSON.parse(line) as { instanceId: string }),
    );
  });
  return { child, instanceId: info.instanceId };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
  });

describe.skipIf(!sharedRedis)("BullMQ driver: worker processes leave and die mid-drain", () => {
  it("SIGTERM then SIGKILL of the dispatching worker: another takes over, nothing is lost, no 429", async () => {
    const rig = await startRig({ ...LIMITS, driver: "bullmq", inProcessWorker: false });
    const redis = new Redis(rig.redis.url);
    try {
      // Three from the start: one leaves, one dies, one is left to finish. (A worker started mid-drain takes seconds
      // to load on a busy machine, by which time the others may have drained everything: no fault would meet a drain.)
      const workers = await Promise.all([startWorkerProcess(rig), startWorkerProcess(rig), startWorkerProcess(rig)]);
      const leader = () =>
        until(
          async () => {
            const holder = await redis.get(`${rig.redis.prefix}:fwd:leader`);
            return workers.find((w) => w.instanceId === holder);
          },
          15_000,
          50,
        );
      const ids = await burst(rig, 90);
      const beforeTerm = await midDrain(rig, ids, 10);

      // Graceful: the dispatcher releases its lock at once and its running sends finish.
      const first = await leader();
      first.child.kill("SIGTERM");
      await exited(first.child);
      expect(first.child.exitCode).toBe(0);
      // The drain goes on under another dispatcher before that one dies too.
      await midDrain(rig, ids, beforeTerm + 10);

      // Crash: the lock expires and a survivor resumes from the limiter history mirrored in Redis.
      const second = await until(
        async () => {
          const w = await leader();
          return w !== first ? w : undefined;
        },
        15_000,
        50,
      );
      second.child.kill("SIGKILL");
      await exited(second.child);

      await expectAllForwardedOnce(rig, ids, 40_000);
      expect(rig.sandbox.admin.stats().traffic.totals.limited).toBe(0);
    } finally {
      redis.disconnect();
      for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.all(children.map(exited));
      await rig.close();
    }
  }, 60_000);
});
