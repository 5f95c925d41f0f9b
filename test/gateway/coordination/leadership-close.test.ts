import { afterAll, describe, expect, it } from "vitest";
import { LeaderLock, Leadership, ready, redisConnection } from "../../../src/gateway/coordination/index.js";
import { captureLog } from "../../helpers/log-capture.js";
import { dropPrefix, redisForTests, SHARED_REDIS_URL, uniquePrefix } from "../../helpers/redis.js";

/**
 * D-383: a holder that closes keeps its lock renewed while its role steps down (the webhook dispatcher's grace for its
 * deliveries in flight), so that no other process takes the role before this one has let go; then it releases it and
 * the next takes over at once.
 */

const redisUp = await redisForTests();
const TTL_MS = 600;

describe.skipIf(!redisUp)("D-383: a leader that closes holds its lock until its role has stepped down", () => {
  const prefix = uniquePrefix("closing-leader");
  const cleanup: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
    await dropPrefix(SHARED_REDIS_URL, prefix);
  });

  it("renews through a step-down longer than the lock's life, and the other takes over once it is done", async () => {
    const { log } = captureLog();
    const redis = redisConnection(SHARED_REDIS_URL, "producer", log);
    cleanup.push(() => redis.disconnect());
    await ready(redis);
    const key = `${prefix}:leader`;
    let stepDownAt = Number.POSITIVE_INFINITY;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const a = new Leadership(
      new LeaderLock(redis, key, TTL_MS),
      {
        name: "leader a",
        elected: () => undefined,
        stepDown: async () => {
          stepDownAt = Date.now();
          await released;
        },
      },
      log,
    );
    // b's tries to take the lock, with when each was made and what it gave.
    const tries: { at: number; took: boolean }[] = [];
    const bLock = new LeaderLock(redis, key, TTL_MS);
    const acquire = bLock.acquire.bind(bLock);
    bLock.acquire = async () => {
      const at = Date.now();
      const took = await acquire();
      tries.push({ at, took });
      return took;
    };
    const b = new Leadership(bLock, { name: "leader b", elected: () => undefined, stepDown: () => undefined }, log);
    cleanup.push(
      () => a.close(),
      () => b.close(),
    );
    await a.start();
    await b.start();
    expect([a.leading, b.leading]).toEqual([true, false]);

    const closing = a.close();
    // A try of b's made well after the lock would have expired unrenewed, refused: a still holds it.
    await expect
      .poll(() => tries.some((attempt) => attempt.at > stepDownAt + 2 * TTL_MS && !attempt.took), { timeout: 10_000 })
      .toBe(true);
    expect(b.leading).toBe(false);

    // Positive control: once a's role has stepped down, a releases the lock and b takes over.
    release();
    await closing;
    await expect.poll(() => b.leading, { timeout: 5_000 }).toBe(true);
  });
});
