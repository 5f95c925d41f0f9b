import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeExpiredPayloads } from "../../../src/gateway/submissions/retention.js";
import {
  bearer,
  type Company,
  deliveriesOf,
  ownerApi,
  type Receiver,
  rowCount,
  seedCompany,
  settle,
  settledSubmission,
  startGateway,
  startReceiver,
  type WebhookGateway,
  waitFor,
} from "./support.js";

const DAY_MS = 86_400_000;

let t: WebhookGateway;
let acme: Company;
let api: ReturnType<typeof ownerApi>;
let clock = Date.now();
const receivers: Receiver[] = [];

beforeAll(async () => {
  // A failed attempt is retried a minute later: a failing endpoint's delivery stays pending throughout.
  t = await startGateway({
    webhooks: { retrySchedule: [60_000], jitter: 0, pollMs: 200 },
    now: () => new Date(clock),
  });
  acme = await seedCompany(t.gateway, "Acme");
  api = ownerApi(t.url, await bearer(t.url, acme.email));
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

async function subscribed(status: number) {
  const endpoint = await startReceiver((_r, res) => res.writeHead(status).end());
  receivers.push(endpoint);
  const key = await acme.issueKey({ partnerType: "lead_source" });
  const created = await api("POST", "/subscriptions", {
    vendorKeyId: key.id,
    url: endpoint.url,
    events: ["submission.forwarded"],
  });
  expect(created.status).toBe(201);
  return { endpoint, key, id: String(created.body.id) };
}

async function forwarded(keyId: string): Promise<string> {
  return (
    await settle(
      t.gateway,
      settledSubmission(acme.company.id, keyId, {
        kind: "lead",
        status: "forwarded",
        result: { status: "created", leadId: `lead_${Math.random().toString(36).slice(2)}` },
      }),
    )
  ).id;
}

async function platformEvent(id: string, receivedAt: string) {
  await t.gateway.ctx.webhooks.platformEvents.insert({
    companyId: acme.company.id,
    id,
    event: "quote.viewed",
    resourceType: "lead",
    resourceId: "lead_1",
    resourceVersion: 1,
    occurredAt: receivedAt,
    body: "{}",
    deliveryId: `dlv_${id}`,
    fannedOut: 0,
    receivedAt,
  });
}

describe("retention: webhook history older than retentionDays is purged; what may still be sent is kept", () => {
  it("drops finished deliveries with their attempts and events, and old platform events; keeps pending ones", async () => {
    const ok = await subscribed(200);
    const failing = await subscribed(500);
    const { webhooks } = t.gateway.ctx;
    const allDeliveries = async () => [
      ...(await deliveriesOf(t.gateway, ok.id)),
      ...(await deliveriesOf(t.gateway, failing.id)),
    ];
    const deliveryOf = async (submissionId: string) => {
      const found = (await allDeliveries()).find((d) => d.dedupeKey.startsWith(`submission:${submissionId}:`));
      if (!found) throw new Error(`no delivery of ${submissionId}`);
      return found;
    };
    const statusOf = async (submissionId: string) => (await deliveryOf(submissionId)).status;

    // 40 days ago: one delivered, one dead-lettered, one still pending behind a failing endpoint.
    clock = Date.now() - 40 * DAY_MS;
    const delivered = await forwarded(ok.key.id);
    const dead = await forwarded(ok.key.id);
    const pending = await forwarded(failing.key.id);
    await waitFor(() => ok.endpoint.received.length === 2 && failing.endpoint.received.length === 1);
    await expect.poll(() => statusOf(delivered)).toBe("delivered");
    await expect.poll(() => statusOf(dead)).toBe("delivered");
    await webhooks.deliveries.update((await deliveryOf(dead)).id, { status: "failed" });
    await platformEvent("evt_old", new Date(clock).toISOString());

    // Today: one delivered, one platform event.
    clock = Date.now();
    const recent = await forwarded(ok.key.id);
    await waitFor(() => ok.endpoint.received.length === 3);
    await expect.poll(() => statusOf(recent)).toBe("delivered");
    await platformEvent("evt_new", new Date(clock).toISOString());

    const old = {
      delivered: await deliveryOf(delivered),
      dead: await deliveryOf(dead),
      pending: await deliveryOf(pending),
    };
    const kept = [old.pending, await deliveryOf(recent)];
    expect(old.pending.status).toBe("pending");
    // Positive controls: what the purge should remove is there before it.
    expect(await webhooks.deliveries.attemptsOf(old.delivered.id)).toHaveLength(1);
    expect(await webhooks.deliveries.envelopeOf(old.dead.eventId)).toEqual(expect.any(String));
    const result = await purgeExpiredPayloads({ ctx: t.gateway.ctx });
    expect(result).toMatchObject({ webhookDeliveries: 2, webhookEvents: 2, platformEvents: 1 });

    const sorted = (ids: string[]) => [...ids].sort();
    expect(sorted((await allDeliveries()).map((d) => d.id))).toEqual(sorted(kept.map((d) => d.id)));
    expect(await rowCount(t.gateway, "webhook_deliveries")).toBe(2);
    for (const d of [old.delivered, old.dead]) expect(await webhooks.deliveries.envelopeOf(d.eventId)).toBeUndefined();
    for (const d of kept) expect(await webhooks.deliveries.envelopeOf(d.eventId)).toEqual(expect.any(String));
    expect(await rowCount(t.gateway, "webhook_events")).toBe(2);
    expect(await webhooks.deliveries.attemptsOf(old.delivered.id)).toEqual([]);
    expect(await webhooks.deliveries.attemptsOf(old.dead.id)).toEqual([]);
    expect((await webhooks.platformEvents.list(acme.company.id, 100)).map((e) => e.id)).toEqual(["evt_new"]);

    // Nothing left to purge.
    expect(await purgeExpiredPayloads({ ctx: t.gateway.ctx })).toMatchObject({
      webhookDeliveries: 0,
      webhookEvents: 0,
      platformEvents: 0,
    });
  });
});
