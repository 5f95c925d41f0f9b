import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  type Company,
  deliveryLog,
  ownerApi,
  type Receiver,
  seedCompany,
  settle,
  settledSubmission,
  startGateway,
  startReceiver,
  type WebhookGateway,
  waitFor,
} from "./support.js";

/** Long enough that a delivery queued behind a dead endpoint's request could not arrive within the test's bound. */
const TIMEOUT_MS = 4_000;

let t: WebhookGateway;
let acme: Company;
let api: ReturnType<typeof ownerApi>;
const receivers: Receiver[] = [];
const held: ServerResponse[] = [];

beforeAll(async () => {
  // A global cap smaller than one endpoint's share: the dead endpoints below could fill it on their own.
  t = await startGateway({
    webhooks: {
      retrySchedule: [60_000],
      jitter: 0,
      pollMs: 200,
      timeoutMs: TIMEOUT_MS,
      maxInFlight: 2,
      perEndpoint: 2,
    },
  });
  acme = await seedCompany(t.gateway, "Acme");
  api = ownerApi(t.url, await bearer(t.url, acme.email));
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

async function subscribed(answer?: Parameters<typeof startReceiver>[0]) {
  const endpoint = await startReceiver(answer);
  receivers.push(endpoint);
  const key = await acme.issueKey({ partnerType: "lead_source" });
  const created = await api("POST", "/subscriptions", {
    vendorKeyId: key.id,
    url: endpoint.url,
    events: ["submission.forwarded"],
  });
  expect(created.status).toBe(201);
  return { endpoint, key, subscriptionId: String(created.body.id) };
}

async function forwarded(keyId: string) {
  await settle(
    t.gateway,
    settledSubmission(acme.company.id, keyId, {
      kind: "lead",
      status: "forwarded",
      result: { status: "created", leadId: `lead_${Math.random().toString(36).slice(2)}` },
    }),
  );
}

describe("§6 webhooks: a dead endpoint holds one slot of its own, never a healthy endpoint's", () => {
  it("delivers to a healthy endpoint at once while dead endpoints with a backlog could fill the global cap", async () => {
    const healthy = await subscribed();
    await forwarded(healthy.key.id);
    await waitFor(() => healthy.endpoint.received.length === 1, 2_000, "the healthy endpoint's first delivery");
    // Its outcome committed: the endpoint is known to answer.
    await expect
      .poll(async () => (await deliveryLog(api, healthy.subscriptionId)).map((d) => d.status))
      .toEqual(["delivered"]);

    // Three endpoints that never answer, never heard from before, with five deliveries each.
    const dead = await Promise.all([1, 2, 3].map(() => subscribed((_r, res) => void held.push(res))));
    for (const d of dead) for (let i = 0; i < 5; i++) await forwarded(d.key.id);
    const deadRequests = () => dead.reduce((n, d) => n + d.endpoint.received.length, 0);
    await waitFor(() => deadRequests() >= 2, 2_000, "requests to the dead endpoints");

    // Had the dead endpoints taken the two slots of the global cap, these would wait for their 4 s timeouts.
    for (let i = 0; i < 10; i++) await forwarded(healthy.key.id);
    await waitFor(() => healthy.endpoint.received.length === 11, 2 * TIMEOUT_MS, "the healthy deliveries");
    // They did not: every request to a dead endpoint is still in flight (none timed out, no outcome recorded).
    expect(t.gateway.webhooks.dispatcher?.stats().probesInFlight).toBe(deadRequests());
    for (const d of dead) {
      expect((await deliveryLog(api, d.subscriptionId)).filter((delivery) => delivery.attempts > 0)).toEqual([]);
    }

    // A dead endpoint not yet heard from got one probe, not its share of a healthy endpoint's slots.
    for (const d of dead) expect(d.endpoint.received.length).toBeLessThanOrEqual(1);
    expect(t.gateway.webhooks.dispatcher?.stats().probesInFlight ?? Number.NaN).toBeLessThanOrEqual(2);
  });
});
