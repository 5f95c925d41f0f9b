import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newSandbox, send } from "../support.js";
import {
  consoleCall,
  ENDS_AT,
  FAST,
  type Receiver,
  STARTS_AT,
  startReceiver,
  waitFor,
  webhookSandbox,
} from "./support.js";

let sandbox: ReturnType<typeof webhookSandbox>;
let session: string;
const receivers: Receiver[] = [];

beforeEach(() => {
  sandbox = webhookSandbox();
  session = sandbox.admin.ownerSession("org_sunrise").sessionToken;
});
afterEach(async () => {
  sandbox.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
  const started = await startReceiver(options);
  receivers.push(started);
  return started;
}

const call = (method: string, path: string, json?: unknown) => consoleCall(sandbox, method, path, { session, json });

/** Records a partner of the company with its type (§1), handing it the named keys. */
async function partner(type: string, keyIds: string[] = []): Promise<string> {
  const created = await call("POST", "/partner-api/partners", { name: `${type} partner`, type, keyIds });
  expect(created.status).toBe(201);
  return String(created.body.id);
}

/** Subscribes `to` and loads the shown secret into it as version 1 (§6.5.2). */
async function subscribe(to: Receiver, body: Record<string, unknown> = {}): Promise<string> {
  const created = await call("POST", "/partner-api/webhooks", { url: to.url, events: ["appointment.booked"], ...body });
  expect(created.status).toBe(201);
  to.secrets.set(1, String(created.body.secret));
  return String(created.body.id);
}

async function book(key = sandbox.key("sunrise-general"), leadId = "lead_sunrise_0001"): Promise<string> {
  const reply = await send(sandbox.app, "POST", "/api/inbound/appointments", {
    key,
    json: { leadId, startsAt: STARTS_AT, endsAt: ENDS_AT, idempotencyKey: randomUUID() },
  });
  expect(reply.status).toBe(201);
  return String(reply.body.appointmentId);
}

type Delivery = {
  id: string;
  status: string;
  eventId: string;
  nextAttemptAt: string | null;
  attempts: Array<Record<string, unknown>>;
};
async function deliveries(id: string, query = ""): Promise<Delivery[]> {
  return (await call("GET", `/partner-api/webhooks/${id}/deliveries${query}`)).body.deliveries as Delivery[];
}

describe("§6.1 envelope of appointment.booked", () => {
  it("carries evt_ id, event, apiVersion 2026-08-26, schemaVersion 1, resource and the visit's data, never a price", async () => {
    const hook = await receiver();
    await subscribe(hook);
    const appointmentId = await book();
    const [got] = await waitFor("a delivery", () => hook.received.length > 0 && hook.received);
    expect(got?.envelope).toEqual({
      id: expect.stringMatching(/^evt_/),
      event: "appointment.booked",
      apiVersion: "2026-08-26",
      schemaVersion: 1,
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      resource: { type: "appointment", id: appointmentId, version: 1 },
      data: {
        change: "created",
        appointmentId,
        leadId: "lead_sunrise_0001",
        startsAt: STARTS_AT,
        endsAt: ENDS_AT,
        customer: {
          name: "Dana Whitfield",
          email: "dana.whitfield@example.com",
          phone: "+1 (602) 555-0101",
          address: expect.stringContaining("Canyon View"),
        },
      },
    });
    expect(got?.rawBody.toString()).not.toMatch(/price|amount|cost|quote/i);
    expect(got?.envelope.id).toBe(sandbox.admin.events().at(-1)?.id);
  });
});

describe("§6.2–§6.3 headers and signature", () => {
  it("each delivery verifies with src/receiver using the subscription's secret, headers as §6.2 lists them", async () => {
    const hook = await receiver();
    await subscribe(hook);
    await book();
    const [got] = await waitFor("a delivery", () => hook.received.length > 0 && hook.received);
    expect(got?.verification).toMatchObject({ ok: true, event: "appointment.booked", secretVersion: 1 });
    expect(got?.headers).toMatchObject({
      "content-type": "application/json",
      "x-svc-event": "appointment.booked",
      "x-svc-delivery-id": expect.stringMatching(/^dlv_/),
      "x-svc-secret-version": "1",
      "x-svc-signature": expect.stringMatching(/^v1=[0-9a-f]{64}$/),
    });
    expect(Math.abs(Number(got?.headers["x-svc-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
  });

  it("a receiver holding another secret rejects the delivery (bad_signature), so the signature is really checked", async () => {
    const hook = await receiver();
    await subscribe(hook);
    hook.secrets.set(1, "whsec_not_the_right_secret");
    await book();
    const [got] = await waitFor("a delivery", () => hook.received.length > 0 && hook.received);
    expect(got?.verification).toMatchObject({ ok: false, reason: "bad_signature" });
  });
});

describe("§6.5 rotation: deliveries signed with the current version before and after activation", () => {
  it("after rotate still v1; after activate v2 (a receiver with only v2 verifies); retries switch too", async () => {
    const hook = await receiver();
    const id = await subscribe(hook);
    const rotated = await call("POST", `/partner-api/webhooks/${id}/rotate-secret`);
    hook.secrets.set(2, String(rotated.body.secret));

    await book();
    await waitFor("delivery 1", () => hook.received.length === 1);
    expect(hook.received[0]?.headers["x-svc-secret-version"]).toBe("1");
    expect(hook.received[0]?.verification.ok).toBe(true);

    await call("POST", `/partner-api/webhooks/${id}/activate-secret`, { pendingSecretVersion: 2 });
    hook.secrets.delete(1);
    await book();
    await waitFor("delivery 2", () => hook.received.length === 2);
    expect(hook.received[1]?.headers["x-svc-secret-version"]).toBe("2");
    expect(hook.received[1]?.verification).toMatchObject({ ok: true, secretVersion: 2 });
  });
});

describe("§6.4 acknowledgement, retries with backoff, dead letter", () => {
  it("retries a failing endpoint on the schedule, new delivery id each time, same evt_ id and bytes, then dead-letters", async () => {
    const hook = await receiver({ respond: () => 500 });
    const id = await subscribe(hook);
    await book();
    const [dead] = await waitFor("the dead letter", async () => {
      const found = await deliveries(id, "?status=dead_lettered");
      return found.length > 0 && found;
    });
    expect(hook.received).toHaveLength(4);
    const gaps = hook.received.slice(1).map((r, i) => r.at - (hook.received[i]?.at ?? 0));
    // FAST waits 100, 200, 400 ms after attempts 1, 2, 3: never sooner.
    expect(gaps[0]).toBeGreaterThanOrEqual(95);
    expect(gaps[1]).toBeGreaterThanOrEqual(195);
    expect(gaps[2]).toBeGreaterThanOrEqual(395);
    expect(new Set(hook.received.map((r) => r.headers["x-svc-delivery-id"])).size).toBe(4);
    expect(new Set(hook.received.map((r) => r.envelope.id)).size).toBe(1);
    expect(new Set(hook.received.map((r) => r.rawBody.toString())).size).toBe(1);

    expect(dead).toMatchObject({ status: "dead_lettered", attemptCount: 4, nextAttemptAt: null });
    expect(dead?.eventId).toBe(hook.received[0]?.envelope.id);
    expect(dead?.attempts.map((a) => [a.attempt, a.responseStatus, a.error])).toEqual([
      [1, 500, "answered 500"],
      [2, 500, "answered 500"],
      [3, 500, "answered 500"],
      [4, 500, "answered 500"],
    ]);
    expect(dead?.attempts.map((a) => a.deliveryId)).toEqual(hook.received.map((r) => r.headers["x-svc-delivery-id"]));
    // Nothing is pending any more, so nothing more can be sent: the state, not a wait, says so.
    expect(sandbox.admin.stats().webhooks).toEqual({
      subscriptions: 1,
      deliveries: { pending: 0, succeeded: 0, dead_lettered: 1 },
      attempts: 4,
    });
    expect(hook.received).toHaveLength(4);
  });

  it("a 2xx settles the delivery: after two failures the third attempt succeeds and nothing more is sent", async () => {
    const hook = await receiver({ respond: (n) => (n <= 2 ? 503 : 204) });
    const id = await subscribe(hook);
    await book();
    const [done] = await waitFor("success", async () => {
      const found = await deliveries(id, "?status=succeeded");
      return found.length > 0 && found;
    });
    expect(done).toMatchObject({ attemptCount: 3, nextAttemptAt: null });
    expect(sandbox.admin.stats().webhooks.deliveries).toMatchObject({ pending: 0, succeeded: 1 });
    expect(hook.received).toHaveLength(3);
  });

  it("§6.4.1: an endpoint that does not answer within the wait fails the attempt (timeout) and is retried", async () => {
    sandbox.close();
    sandbox = webhookSandbox({ retryDelaysMs: [50], jitter: 0, pollIntervalMs: 20, timeoutMs: 300 });
    session = sandbox.admin.ownerSession("org_sunrise").sessionToken;
    const hook = await receiver({ respond: (n) => (n === 1 ? "hang" : 200) });
    const id = await subscribe(hook);
    await book();
    const [done] = await waitFor("success after a timeout", async () => {
      const found = await deliveries(id, "?status=succeeded");
      return found.length > 0 && found;
    });
    expect(done?.attempts[0]).toMatchObject({ responseStatus: null, error: expect.stringMatching(/^timeout/) });
    expect(done?.attempts[1]).toMatchObject({ responseStatus: 200, error: null });
  });

  it("one dead endpoint does not delay deliveries to others", async () => {
    sandbox.close();
    sandbox = webhookSandbox({ retryDelaysMs: [], jitter: 0, pollIntervalMs: 20, timeoutMs: 3000 });
    session = sandbox.admin.ownerSession("org_sunrise").sessionToken;
    const dead = await receiver({ respond: () => "hang" });
    const healthy = await receiver();
    await subscribe(dead);
    await subscribe(healthy);
    const started = Date.now();
    for (let i = 0; i < 10; i++) await book();
    await waitFor("10 healthy deliveries", () => healthy.received.length === 10, 2000);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(healthy.received.every((r) => r.verification.ok)).toBe(true);
  });
});

describe("console: redeliver and test delivery", () => {
  it("redelivers a dead-lettered delivery with the same evt_ id and fresh attempts; a pending one is 409", async () => {
    const hook = await receiver({ respond: () => 500 });
    const id = await subscribe(hook);
    await book();
    const [dead] = await waitFor("the dead letter", async () => {
      const found = await deliveries(id, "?status=dead_lettered");
      return found.length > 0 && found;
    });
    hook.respond = () => 200;
    const again = await call("POST", `/partner-api/webhooks/${id}/deliveries/${dead?.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ eventId: dead?.eventId, redeliveryOf: dead?.id, attemptCount: 0 });
    await waitFor("the redelivery", () => hook.received.length === 5);
    expect(hook.received[4]?.verification).toMatchObject({ ok: true, eventId: dead?.eventId });

    hook.respond = () => "hang";
    await book();
    const pending = await waitFor("a pending delivery", async () => {
      const found = await deliveries(id, "?status=pending");
      return found.length > 0 && found[0];
    });
    const refused = await call("POST", `/partner-api/webhooks/${id}/deliveries/${pending.id}/redeliver`);
    expect(refused.status).toBe(409);
    const unknown = await call("POST", `/partner-api/webhooks/${id}/deliveries/whd_nope/redeliver`);
    expect(unknown.status).toBe(404);
  });

  it("§6.6: redelivering a delivered event reaches the receiver as the same event, acknowledged as already processed", async () => {
    const hook = await receiver();
    const id = await subscribe(hook);
    await book();
    const [done] = await waitFor("success", async () => {
      const found = await deliveries(id, "?status=succeeded");
      return found.length > 0 && found;
    });
    const again = await call("POST", `/partner-api/webhooks/${id}/deliveries/${done?.id}/redeliver`);
    expect(again.status).toBe(202);
    await waitFor("the redelivery", () => hook.received.length === 2);
    expect(hook.received[1]?.verification).toMatchObject({ ok: false, acknowledge: true, reason: "already_processed" });
    const settled = await waitFor("the redelivery settled", async () => {
      const found = await deliveries(id, "?status=succeeded");
      return found.length === 2 && found;
    });
    expect(settled[0]).toMatchObject({ redeliveryOf: done?.id, eventId: done?.eventId, attemptCount: 1 });
  });

  it("§6.1: a test delivery is install.test with resource type subscription, signed, whatever the events", async () => {
    const hook = await receiver();
    const id = await subscribe(hook, { events: ["quote.sent"] });
    const queued = await call("POST", `/partner-api/webhooks/${id}/test`);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ event: "install.test", status: "pending" });
    const [got] = await waitFor("the test delivery", () => hook.received.length > 0 && hook.received);
    expect(got?.verification).toMatchObject({ ok: true, event: "install.test" });
    expect(got?.envelope).toMatchObject({
      event: "install.test",
      apiVersion: "2026-08-26",
      schemaVersion: 1,
      resource: { type: "subscription", id, version: 1 },
      data: { subscriptionId: id },
    });
    expect(sandbox.admin.events()).toEqual([]);
  });
});

describe("§4.2 rule 2 and §6.7: who receives appointment.booked", () => {
  it("a booking reaches other subscribers, not the one naming the booking key; a move reaches both, version 2", async () => {
    const own = await receiver();
    const other = await receiver();
    await subscribe(own, { partnerId: await partner("booking_vendor", ["svc_test_SUNgn0001"]) });
    await subscribe(other);
    const appointmentId = await book();
    await waitFor("the other subscriber's delivery", () => other.received.length === 1);

    const moved = await send(sandbox.app, "POST", `/sandbox/admin/appointments/${appointmentId}/move`, {
      token: "admin-token-for-webhook-tests",
      json: { startsAt: "2026-10-02T15:00:00Z", endsAt: "2026-10-02T16:00:00Z" },
    });
    expect(moved.status).toBe(200);
    await waitFor("the move at both", () => own.received.length === 1 && other.received.length === 2);
    for (const got of [own.received[0], other.received[1]]) {
      expect(got?.verification.ok).toBe(true);
      expect(got?.envelope).toMatchObject({
        id: moved.body.eventId,
        resource: { type: "appointment", id: appointmentId, version: 2 },
        data: { change: "moved", startsAt: "2026-10-02T15:00:00Z", endsAt: "2026-10-02T16:00:00Z" },
      });
    }
    expect(other.received[0]?.envelope.id).not.toBe(moved.body.eventId);
  });

  it("§1: a booking vendor naming its keys hears only about appointments those keys booked", async () => {
    const vendor = await receiver();
    const id = await subscribe(vendor, { partnerId: await partner("booking_vendor", ["svc_test_SUNgn0001"]) });
    const other = sandbox.admin.createKey({ companyId: "org_sunrise", kind: "general" });
    const theirs = await book(other.key);
    const mine = await book();
    sandbox.admin.moveAppointment({ appointmentId: theirs, startsAt: STARTS_AT, endsAt: "2026-10-01T17:00:00Z" });
    sandbox.admin.moveAppointment({ appointmentId: mine, startsAt: STARTS_AT, endsAt: "2026-10-01T17:00:00Z" });
    await waitFor("one delivery", () => vendor.received.length === 1);
    // Routing decides when the event is recorded: one delivery row is all there will ever be.
    expect(await deliveries(id)).toHaveLength(1);
    expect(vendor.received.map((r) => r.envelope.resource.id)).toEqual([mine]);
  });

  it("another company's events never reach a subscription", async () => {
    const hook = await receiver();
    const id = await subscribe(hook);
    const lead = await send(sandbox.app, "POST", "/api/inbound/leads", {
      key: sandbox.key("brightline-general"),
      json: {
        fullName: "B Person",
        email: "b@example.com",
        phone: "+1 602 555 0199",
        address: "9 Other Road, Mesa, AZ 85201",
      },
    });
    await book(sandbox.key("brightline-general"), String(lead.body.leadId));
    // Positive control: the company's own booking, made after the other's, arrives; and it is the only delivery.
    const mine = await book();
    await waitFor("the company's own booking", () => hook.received.length === 1);
    expect(await deliveries(id)).toHaveLength(1);
    expect(hook.received.map((r) => r.envelope.resource.id)).toEqual([mine]);
  });
});

/** A lead created with the lead source's key (`sunrise-leads-only`): one it sourced (§1). */
async function sourceLead(): Promise<string> {
  const created = await send(sandbox.app, "POST", "/api/inbound/leads", {
    key: sandbox.key("sunrise-leads-only"),
    json: {
      fullName: "S Person",
      email: "s@example.com",
      phone: "+1 602 555 0142",
      address: "12 Source Street, Phoenix, AZ 85004",
    },
  });
  expect(created.status).toBe(201);
  return String(created.body.leadId);
}

describe("§6.7 sales events the sandbox can produce (admin)", () => {
  it("quote.sent, quote.accepted, project.completed reach a lead source with lead id and stage only", async () => {
    const source = await receiver();
    const vendor = await receiver();
    await subscribe(source, {
      partnerId: await partner("lead_source", ["svc_test_SUNld0001"]),
      events: ["quote.sent", "quote.accepted", "project.completed"],
    });
    await subscribe(vendor, { partnerId: await partner("booking_vendor") });
    const leadId = await sourceLead();
    for (const event of ["quote.sent", "quote.accepted", "project.completed"]) {
      const emitted = await send(sandbox.app, "POST", `/sandbox/admin/leads/${leadId}/events`, {
        token: "admin-token-for-webhook-tests",
        json: { event },
      });
      expect(emitted.status).toBe(201);
    }
    await waitFor("three deliveries", () => source.received.length === 3);
    const byEvent = Object.fromEntries(source.received.map((r) => [r.envelope.event, r.envelope]));
    expect(byEvent["quote.sent"]).toMatchObject({
      resource: { type: "lead", id: leadId, version: 1 },
      data: { leadId, stage: "QUOTE_SENT" },
    });
    expect(byEvent["quote.accepted"]?.data).toEqual({ leadId, stage: "QUOTE_ACCEPTED" });
    expect(byEvent["project.completed"]).toMatchObject({ resource: { version: 3 }, data: { stage: "COMPLETED" } });
    expect(source.received.every((r) => r.verification.ok)).toBe(true);
    expect(vendor.received).toEqual([]);
  });

  it("a lead source naming its keys hears only about leads those keys sourced; unknown leads are 404", async () => {
    const source = await receiver();
    const id = await subscribe(source, {
      partnerId: await partner("lead_source", ["svc_test_SUNld0001"]),
      events: ["quote.sent"],
    });
    const sourced = await sourceLead();
    sandbox.admin.emitLeadEvent({ leadId: "lead_sunrise_0001", event: "quote.sent" });
    sandbox.admin.emitLeadEvent({ leadId: sourced, event: "quote.sent" });
    await waitFor("one delivery", () => source.received.length === 1);
    expect(await deliveries(id)).toHaveLength(1);
    expect(source.received.map((r) => r.envelope.data.leadId)).toEqual([sourced]);
    const missing = await send(sandbox.app, "POST", "/sandbox/admin/leads/lead_nope/events", {
      token: "admin-token-for-webhook-tests",
      json: { event: "quote.sent" },
    });
    expect(missing.status).toBe(404);
  });
});

describe("durability and shutdown", () => {
  it("a delivery queued before a stop is sent after a restart on the same database file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-webhooks-"));
    const dbPath = join(dir, "sandbox.db");
    try {
      sandbox.close();
      sandbox = newSandbox({ adminToken: "admin-token-for-webhook-tests", webhooks: FAST, dbPath });
      session = sandbox.admin.ownerSession("org_sunrise").sessionToken;
      const hook = await receiver();
      const id = await subscribe(hook);
      sandbox.admin.webhooks.stop();
      await book();
      expect(await deliveries(id, "?status=pending")).toHaveLength(1);
      sandbox.close();
      expect(hook.received).toEqual([]);

      sandbox = newSandbox({ adminToken: "admin-token-for-webhook-tests", webhooks: FAST, dbPath });
      await waitFor("the delivery after restart", () => hook.received.length === 1);
      expect(hook.received[0]?.verification).toMatchObject({ ok: true, event: "appointment.booked" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("close() stops the dispatcher: nothing is sent after it", async () => {
    const hook = await receiver({ respond: () => 500 });
    const id = await subscribe(hook);
    await book();
    await waitFor("first attempt", () => hook.received.length === 1);
    // The retry is due at nextAttemptAt: wait past it (and a few polls), which would have sent it.
    const [pending] = await waitFor("the retry scheduled", async () => {
      const found = await deliveries(id, "?status=pending");
      return found[0]?.nextAttemptAt ? found : false;
    });
    const dueAt = Date.parse(String(pending?.nextAttemptAt));
    sandbox.close();
    await waitFor("the retry's time", () => Date.now() > dueAt + 5 * FAST.pollIntervalMs, 5_000);
    expect(hook.received).toHaveLength(1);
    sandbox = webhookSandbox();
  });
});

describe("dispatch is prompt: bookings, admin changes and console sends wake the dispatcher", () => {
  it("with a 10 s poll, a booking, a move and a test delivery each arrive within a second", async () => {
    sandbox.close();
    sandbox = webhookSandbox({ retryDelaysMs: [], jitter: 0, pollIntervalMs: 10_000, timeoutMs: 2000 });
    session = sandbox.admin.ownerSession("org_sunrise").sessionToken;
    const hook = await receiver();
    const id = await subscribe(hook);
    // Let the dispatcher's first look (at start) pass, so only a wake-up can send the booking before the poll: that
    // look is one setImmediate after the start (dispatcher.ts, start → wake), queued before this one.
    await new Promise((resolve) => setImmediate(resolve));
    const appointmentId = await book();
    await waitFor("the booking", () => hook.received.length === 1, 1000);
    sandbox.admin.moveAppointment({ appointmentId, startsAt: STARTS_AT, endsAt: "2026-10-01T17:00:00Z" });
    await waitFor("the move", () => hook.received.length === 2, 1000);
    await call("POST", `/partner-api/webhooks/${id}/test`);
    await waitFor("the test delivery", () => hook.received.length === 3, 1000);
  });
});
