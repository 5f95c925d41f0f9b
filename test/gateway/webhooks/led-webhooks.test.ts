import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { GatewayContext } from "../../../src/gateway/context.js";
import { LeaderLock } from "../../../src/gateway/coordination/leader-lock.js";
import { openGatewayContext } from "../../../src/gateway/create-gateway.js";
import { startLedWebhooks } from "../../../src/gateway/webhooks/led-webhooks.js";
import type { RunningWebhooks } from "../../../src/gateway/webhooks/start-webhooks.js";
import { createLogger } from "../../../src/log.js";
import { until } from "../../helpers/forwarding.js";
import { dropPrefix, redisForTests, SHARED_REDIS_URL, uniquePrefix } from "../../helpers/redis.js";
import { testStorage } from "../../helpers/test-store.js";

/**
 * Forwarding with webhooks: several API processes share one database with the BullMQ driver; were each to run a
 * webhook dispatcher, every pending delivery would be sent once per process. One is elected by a Redis lock.
 */
const reachable = await redisForTests();

describe.skipIf(!reachable)("webhook delivery with several API processes (Redis)", () => {
  const prefix = uniquePrefix("webhooks");
  const databasePath = join(mkdtempSync(join(tmpdir(), "pg-led-")), "gateway.db");
  const masterKey = randomBytes(32).toString("hex");
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const item of opened.reverse()) await item.close();
    await dropPrefix(SHARED_REDIS_URL, prefix);
  });

  /** Every process's tries for the lock (one LeaderLock each), as Redis answered them. */
  const acquire = vi.spyOn(LeaderLock.prototype, "acquire");
  afterAll(() => acquire.mockRestore());

  /** The tries answered since the `from`-th: whose lock it was, and whether it took the lock or found it held. */
  function triesSince(from: number): { lock: LeaderLock; took: boolean }[] {
    return acquire.mock.settledResults.flatMap((result, i) =>
      i >= from && result.type === "fulfilled"
        ? [{ lock: acquire.mock.contexts[i] as LeaderLock, took: result.value }]
        : [],
    );
  }

  /** The subscriptions a dispatcher is told about from now on. */
  function heard(dispatcher: { notify(subscriptionId: string, dueAt: number): void }): string[] {
    const woken: string[] = [];
    const notify = dispatcher.notify.bind(dispatcher);
    dispatcher.notify = (subscriptionId, dueAt) => {
      woken.push(subscriptionId);
      notify(subscriptionId, dueAt);
    };
    return woken;
  }

  async function apiProcess(): Promise<{ webhooks: RunningWebhooks; ctx: GatewayContext }> {
    const { ctx, close } = await openGatewayContext({
      // TEST_STORE=postgres: the path maps to a database of its own, the same one for every process (test-store.ts).
      ...(await testStorage(databasePath)),
      log: createLogger({ level: "silent" }),
      masterKey,
    });
    opened.push({ close });
    // The lock's default time to live (6 s): with 2 s, a loaded CI machine let a holder's renewals (each after a
    // database ping of up to 1 s, D-335) lapse, and a second process rightly took over, which this test counts.
    // A leader that leaves releases the lock, so the takeover below waits only for the others' next try (every 1 s).
    const webhooks = startLedWebhooks(ctx, {}, { url: SHARED_REDIS_URL, prefix });
    opened.push(webhooks);
    return { webhooks, ctx };
  }

  it("runs exactly one dispatcher; the others pass their notices to it; another takes over when it leaves", async () => {
    const a = await apiProcess();
    const leader = await until(() => a.webhooks.dispatcher, 5_000);
    const aLock = await until(() => triesSince(0).find((t) => t.took)?.lock, 1_000);
    const b = await apiProcess();
    const c = await apiProcess();
    // Positive control: both others have asked Redis for the lock and been refused (Redis reachable, the lock held).
    await until(
      () =>
        new Set(
          triesSince(0)
            .filter((t) => !t.took)
            .map((t) => t.lock),
        ).size === 2,
      5_000,
    );
    expect(
      triesSince(0)
        .filter((t) => t.took)
        .map((t) => t.lock),
    ).toEqual([aLock]);
    expect([a, b, c].map((p) => p.webhooks.dispatcher)).toEqual([leader, undefined, undefined]);

    // A subscription changed or a delivery enqueued in a process that does not send: the leader hears of it.
    const woken = heard(leader);
    b.ctx.running.webhookDue("whsub_from_b", Date.now());
    await until(() => woken.includes("whsub_from_b"), 2_000);

    // The leader leaves (SIGTERM releases the lock): one of the others takes over.
    const left = acquire.mock.calls.length;
    await a.webhooks.close();
    const next = await until(() => [b, c].find((p) => p.webhooks.dispatcher !== undefined), 3_000);
    const follower = next === b ? c : b;
    const nextLock = triesSince(left).find((t) => t.took)?.lock;
    // The other has been refused since: it still follows, and its notices reach the new leader.
    await until(() => triesSince(left).some((t) => !t.took && t.lock !== nextLock), 3_000);
    expect(
      triesSince(left)
        .filter((t) => t.took)
        .map((t) => t.lock),
    ).toEqual([nextLock]);
    expect(follower.webhooks.dispatcher).toBeUndefined();
    const dispatcher = next.webhooks.dispatcher;
    if (!dispatcher) throw new Error("no dispatcher");
    const wokenNext = heard(dispatcher);
    follower.ctx.running.webhookDue("whsub_from_follower", Date.now());
    await until(() => wokenNext.includes("whsub_from_follower"), 2_000);
  });
});
