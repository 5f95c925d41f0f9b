import { afterAll, describe, expect, it } from "vitest";
import { LeaderLock, Leadership, ready, redisConnection } from "../../../src/gateway/coordination/index.js";
import { startFaultProxy } from "../../helpers/fault-proxy.js";
import { captureLog } from "../../helpers/log-capture.js";
import { dropPrefix, redisForTests, SHARED_REDIS_URL, uniquePrefix } from "../../helpers/redis.js";

/**
 * F2 of the outage branch (D-335): a leader whose Redis connection is held silent by a partition (the fault proxy's
 * stall) used to wait for its renewal for ever, and never stepped down. Its producer connection's commands now fail
 * after their timeout: it steps down, before the lock can expire and the other process take over.
 */

const redisUp = await redisForTests();
const TTL_MS = 3_000;

describe.skipIf(!redisUp)("F2 (D-335): a leader cut off from Redis by a partition", () => {
  const prefix = uniquePrefix("partition");
  const target = new URL(SHARED_REDIS_URL);
  const cleanup: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
    await dropPrefix(SHARED_REDIS_URL, prefix);
  });

  it("steps down before the lock expires, and the other process takes over only then", async () => {
    const { log } = captureLog();
    const proxy = await startFaultProxy({ target: { host: target.hostname, port: Number(target.port || 6379) } });
    const cut = redisConnection(proxy.url(SHARED_REDIS_URL), "producer", log);
    const whole = redisConnection(SHARED_REDIS_URL, "producer", log);
    const events: { who: string; what: "elected" | "stepped down"; at: number }[] = [];
    const role = (who: string) => ({
      name: `leader ${who}`,
      elected: () => {
        events.push({ who, what: "elected", at: Date.now() });
      },
      stepDown: () => {
        events.push({ who, what: "stepped down", at: Date.now() });
      },
    });
    const key = `${prefix}:leader`;
    const a = new Leadership(new LeaderLock(cut, key, TTL_MS), role("a"), log);
    const b = new Leadership(new LeaderLock(whole, key, TTL_MS), role("b"), log);
    cleanup.push(
      () => proxy.close(),
      () => cut.disconnect(),
      () => whole.disconnect(),
      () => a.close(),
      () => b.close(),
    );
    await Promise.all([ready(cut), ready(whole)]);
    await a.start();
    await b.start();
    // Positive control: one leader, the other waiting.
    expect([a.leading, b.leading]).toEqual([true, false]);

    proxy.stall();
    await expect.poll(() => a.leading, { timeout: 10_000 }).toBe(false);
    await expect.poll(() => b.leading, { timeout: 10_000 }).toBe(true);
    const steppedDown = events.find((e) => e.who === "a" && e.what === "stepped down")?.at ?? Number.NaN;
    const tookOver = events.find((e) => e.who === "b" && e.what === "elected")?.at ?? Number.NaN;
    // Never two at once: a had stopped before b began.
    expect(steppedDown).toBeLessThanOrEqual(tookOver);
    expect(a.fenceOpen()).toBe(false);
  });
});
