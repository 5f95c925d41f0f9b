import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeExpiredPayloads } from "../../../src/gateway/submissions/retention.js";
import { sqliteOf } from "../../helpers/sqlite-of.js";
import {
  bearer,
  type Company,
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

function platformEvent(id: string, receivedAt: string) {
  sqliteOf(t.gateway)
    .sqlite.prepare(
      `INSERT INTO platform_events (company_id, id, event, resource_type, resource_id, resource_version, occurred_at,
         body, delivery_id, fanned_out, received_at) VALUES (?, ?, 'quote.viewed', 'lead', 'lead_1', 1, ?, '{}', ?, 0, ?)`,
    )
    .run(acme.company.id, id, receivedAt, `dlv_${id}`, receivedAt);
}

describe("retention: webhook history older than retentionDays is purged; what may still be sent is kept", () => {
  it("drops finished deliveries with their attempts and events, and old platform events; keeps pending ones", async () => {
    const ok = await subscribed(200);
    const failing = await subscribed(500);
    const sqlite = sqliteOf(t.gateway).sqlite;
    const deliveryOf = (submissionId: string) =>
      sqlite
        .prepare("SELECT id, event_id AS eventId, status FROM webhook_deliveries WHERE dedupe_key LIKE ?")
        .get(`submission:${submissionId}:%`) as { id: string; eventId: string; status: string };

    // 40 days ago: one delivered, one dead-lettered, one still pending behind a failing endpoint.
    clock = Date.now() - 40 * DAY_MS;
    const delivered = await forwarded(ok.key.id);
    const dead = await forwarded(ok.key.id);
    const pending = await forwarded(failing.key.id);
    await waitFor(() => ok.endpoint.received.length === 2 && failing.endpoint.received.length === 1);
    await waitFor(() => deliveryOf(delivered).status === "delivered" && deliveryOf(dead).status === "delivered");
    sqlite.prepare("UPDATE webhook_deliveries SET status = 'failed' WHERE id = ?").run(deliveryOf(dead).id);
    platformEvent("evt_old", new Date(clock).toISOString());

    // Today: one delivered, one platform event.
    clock = Date.now();
    const recent = await forwarded(ok.key.id);
    await waitFor(() => ok.endpoint.received.length === 3);
    await waitFor(() => deliveryOf(recent).status === "delivered");
    platformEvent("evt_new", new Date(clock).toISOString());

    const old = { delivered: deliveryOf(delivered), dead: deliveryOf(dead), pending: deliveryOf(pending) };
    expect(old.pending.status).toBe("pending");
    const result = await purgeExpiredPayloads({ ctx: t.gateway.ctx });
    expect(result).toMatchObject({ webhookDeliveries: 2, webhookEvents: 2, platformEvents: 1 });

    const ids = (sql: string) => (sqlite.prepare(sql).all() as Array<{ id: string }>).map((r) => r.id).sort();
    expect(ids("SELECT id FROM webhook_deliveries")).toEqual([old.pending.id, deliveryOf(recent).id].sort());
    expect(ids("SELECT id FROM webhook_events")).toEqual([old.pending.eventId, deliveryOf(recent).eventId].sort());
    expect(
      sqlite
        .prepare("SELECT count(*) AS n FROM webhook_attempts WHERE delivery_row_id IN (?, ?)")
        .get(old.delivered.id, old.dead.id),
    ).toEqual({ n: 0 });
    expect(ids("SELECT id FROM platform_events")).toEqual(["evt_new"]);

    // Nothing left to purge.
    expect(await purgeExpiredPayloads({ ctx: t.gateway.ctx })).toMatchObject({
      webhookDeliveries: 0,
      webhookEvents: 0,
      platformEvents: 0,
    });
  });
});
