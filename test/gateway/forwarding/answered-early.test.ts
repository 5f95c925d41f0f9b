import { afterEach, describe, expect, it, vi } from "vitest";
import type { GatewayContext } from "../../../src/gateway/context.js";
import { redisConnection } from "../../../src/gateway/coordination/index.js";
import type { SubmissionAttempt } from "../../../src/gateway/forwarding/attempt.js";
import {
  Dispatcher,
  type ReservedSend,
  type SendResult,
  UNSETTLED_PER_IN_FLIGHT,
} from "../../../src/gateway/forwarding/dispatcher.js";
import type { ForwardingLimits } from "../../../src/gateway/forwarding/limits.js";
import { SendQueueProducer, startSendWorker } from "../../../src/gateway/forwarding/redis/send-queue.js";
import { StoreOutages } from "../../../src/gateway/outage/index.js";
import type { Admissible } from "../../../src/gateway/storage/submissions/index.js";
import { createLogger } from "../../../src/log.js";
import { dropPrefix, redisForTests, SHARED_REDIS_URL, uniquePrefix } from "../../helpers/redis.js";

const roomy: ForwardingLimits = {
  perCredential: { limit: 1_000, windowMs: 60_000 },
  perCompany: { limit: 1_000, windowMs: 60_000 },
  egress: { limit: 1_000, windowMs: 60_000 },
  marginMs: 1,
};

const ctx = {
  submissions: {},
  credentials: {},
  transaction: () => Promise.reject(new Error("no transaction in this test")),
  log: { error: () => undefined, warn: () => undefined },
  tenants: { companyLimits: async () => null },
  outages: new StoreOutages(createLogger({ level: "silent" })),
} as unknown as GatewayContext;

const row = (id: string, credentialId = "cred_1"): Admissible => ({
  id: `sub_${id}`,
  kind: "lead",
  companyId: "co_1",
  credentialId,
  nextAttemptAt: null,
  canonicalBody: {},
});

const settled = (answeredAt: number): SendResult => ({ verdict: { kind: "settled", released: [] }, answeredAt });

/**
 * A transport whose sends are answered at once (or never, `early: false`) and whose results (the outcome committed)
 * come only when the test settles them.
 */
function heldTransport(early: boolean) {
  const sent: { send: ReservedSend; at: number; settle: () => void }[] = [];
  return {
    sent,
    transport: {
      send(send: ReservedSend, answered: (at: number) => void): Promise<SendResult> {
        const at = Date.now();
        return new Promise<SendResult>((resolve) => {
          sent.push({ send, at, settle: () => resolve(settled(at)) });
          if (early) answered(at);
        });
      },
    },
  };
}

describe("a send's answer frees its place before its outcome commits (docs/forwarding.md, answered before committed)", () => {
  let dispatcher: Dispatcher | undefined;
  afterEach(async () => {
    await dispatcher?.close(0);
    dispatcher = undefined;
  });

  it("bounds the sends awaiting an answer by maxInFlight, and the answered ones still committing apart", async () => {
    const held = heldTransport(true);
    dispatcher = new Dispatcher(ctx, { limits: roomy, sendBoundMs: 60_000, maxInFlight: 2, transport: held.transport });
    for (let i = 0; i < 20; i++) dispatcher.notify(row(`a${i}`));
    // Every send was answered at once: the outcomes committing bound them, 2 × UNSETTLED_PER_IN_FLIGHT.
    await vi.waitFor(() => expect(held.sent).toHaveLength(2 * UNSETTLED_PER_IN_FLIGHT));
    expect(dispatcher.backlog).toBe(20 - 2 * UNSETTLED_PER_IN_FLIGHT);
    // One outcome commits: one more goes.
    held.sent[0]?.settle();
    await vi.waitFor(() => expect(held.sent).toHaveLength(2 * UNSETTLED_PER_IN_FLIGHT + 1));
  });

  it("holds every place until the result when no answer is heard early (the control)", async () => {
    const held = heldTransport(false);
    dispatcher = new Dispatcher(ctx, { limits: roomy, sendBoundMs: 60_000, maxInFlight: 2, transport: held.transport });
    for (let i = 0; i < 20; i++) dispatcher.notify(row(`b${i}`));
    await vi.waitFor(() => expect(dispatcher?.backlog).toBe(18));
    expect(held.sent).toHaveLength(2);
    held.sent[0]?.settle();
    await vi.waitFor(() => expect(held.sent).toHaveLength(3));
  });

  it("§8 closes the slot at the answer heard early: the next send on a full window goes a window later, its result still out", async () => {
    const W = 150;
    const tight: ForwardingLimits = { ...roomy, perCredential: { limit: 1, windowMs: W } };
    const held = heldTransport(true);
    dispatcher = new Dispatcher(ctx, { limits: tight, sendBoundMs: 60_000, transport: held.transport });
    dispatcher.notify(row("c1"));
    dispatcher.notify(row("c2"));
    await vi.waitFor(() => expect(held.sent).toHaveLength(2), { timeout: 2_000 });
    const [first, second] = held.sent;
    // The first's outcome never committed; its answer alone closed the slot, and the window was kept.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(W);
  });
});

const redisUp = await redisForTests();

describe.skipIf(!redisUp)("the BullMQ send queue carries the answer ahead of the verdict", () => {
  it("tells the dispatcher's side when the upstream answered while the worker's outcome still commits", async () => {
    const prefix = uniquePrefix("answered-early");
    const log = createLogger({ level: "silent" });
    const producer = redisConnection(SHARED_REDIS_URL, "producer", log);
    const events = redisConnection(SHARED_REDIS_URL, "worker", log);
    const connection = redisConnection(SHARED_REDIS_URL, "worker", log);
    const transport = new SendQueueProducer({ producer, events, prefix, name: "forward-send" }, log);
    let commit: (() => void) | undefined;
    const answeredAt = Date.now() + 7;
    // An attempt whose upstream answers at once and whose outcome commits only when the test says so.
    const attempt = {
      run: (_id: string, onAnswered?: (at: number) => void) =>
        new Promise<SendResult>((resolve) => {
          onAnswered?.(answeredAt);
          commit = () => resolve(settled(answeredAt));
        }),
    } as unknown as SubmissionAttempt;
    const worker = startSendWorker({
      connection,
      prefix,
      name: "forward-send",
      concurrency: 1,
      pickupMs: 5_000,
      attempt,
      log,
    });
    try {
      await Promise.all([transport.ready(), worker.waitUntilReady()]);
      const now = Date.now();
      const heard: number[] = [];
      const result = transport.send(
        {
          ready: { submissionId: "sub_early", credentialId: "cred_1", companyId: "co_1" },
          sendId: `sub_early-${now}`,
          reservedAt: now,
          bound: now + 10_000,
        },
        (at) => heard.push(at),
      );
      await vi.waitFor(() => expect(heard).toEqual([answeredAt]), { timeout: 5_000 });
      // Heard before the verdict: the outcome has not committed yet.
      expect(commit).toBeDefined();
      commit?.();
      await expect(result).resolves.toEqual(settled(answeredAt));
    } finally {
      await worker.close(true);
      await transport.close();
      for (const redis of [producer, events, connection]) redis.disconnect();
      await dropPrefix(SHARED_REDIS_URL, prefix);
    }
  });
});
