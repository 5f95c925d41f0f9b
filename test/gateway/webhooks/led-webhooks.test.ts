import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../../../src/gateway/context.js";
import { openGatewayContext } from "../../../src/gateway/create-gateway.js";
import { startLedWebhooks } from "../../../src/gateway/webhooks/led-webhooks.js";
import { notifyDue } from "../../../src/gateway/webhooks/registry.js";
import type { RunningWebhooks } from "../../../src/gateway/webhooks/start-webhooks.js";
import { createLogger } from "../../../src/log.js";
import { until } from "../../helpers/forwarding.js";
import { dropPrefix, redisForTests, SHARED_REDIS_URL, uniquePrefix } from "../../helpers/redis.js";

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

  async function apiProcess(): Promise<{ webhooks: RunningWebhooks; ctx: GatewayContext }> {
    const { ctx, close } = await openGatewayContext({
      databasePath,
      log: createLogger({ level: "silent" }),
      masterKey,
    });
    opened.push({ close });
    const webhooks = startLedWebhooks(ctx, {}, { url: SHARED_REDIS_URL, prefix, lockTtlMs: 2_000 });
    opened.push(webhooks);
    return { webhooks, ctx };
  }

  it("runs exactly one dispatcher; the others pass their notices to it; another takes over when it leaves", async () => {
    const a = await apiProcess();
    const leader = await until(() => a.webhooks.dispatcher, 5_000);
    const b = await apiProcess();
    const c = await apiProcess();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([a, b, c].filter((p) => p.webhooks.dispatcher !== undefined)).toHaveLength(1);

    // A subscription changed or a delivery enqueued in a process that does not send: the leader hears of it.
    const woken: string[] = [];
    const notify = leader.notify.bind(leader);
    leader.notify = (subscriptionId, dueAt) => {
      woken.push(subscriptionId);
      notify(subscriptionId, dueAt);
    };
    notifyDue(b.ctx, "whsub_from_b", Date.now());
    await until(() => woken.includes("whsub_from_b"), 2_000);

    // The leader leaves (SIGTERM releases the lock): one of the others takes over.
    await a.webhooks.close();
    await until(() => [b, c].some((p) => p.webhooks.dispatcher !== undefined), 3_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([b, c].filter((p) => p.webhooks.dispatcher !== undefined)).toHaveLength(1);
  });
});
