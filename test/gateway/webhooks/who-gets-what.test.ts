import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookVerifier } from "../../../src/receiver/index.js";
import {
  bearer,
  type Company,
  deliverToGateway,
  ownerApi,
  platformEnvelope,
  type Receiver,
  seedCompany,
  settle,
  settledSubmission,
  sleep,
  startGateway,
  startReceiver,
  type WebhookGateway,
  waitFor,
} from "./support.js";

const PLATFORM_SECRET = "whsec_platform_secret_v1_for_tests";
const STARTS = "2026-09-01T09:00:00.000Z";
const ENDS = "2026-09-01T10:00:00.000Z";

let t: WebhookGateway;
let acme: Company;
let api: ReturnType<typeof ownerApi>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startGateway();
  acme = await seedCompany(t.gateway, "Acme");
  api = ownerApi(t.url, await bearer(t.url, acme.email));
  expect((await api("POST", "/platform/secrets", { version: 1, secret: PLATFORM_SECRET })).status).toBe(200);
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

/** A vendor key with a subscription to `events` at a fresh local receiver; returns the verifier for its secret. */
async function vendor(partnerType: "lead_source" | "booking_vendor", events: string[]) {
  const key = await acme.issueKey({ partnerType });
  const endpoint = await startReceiver();
  receivers.push(endpoint);
  const created = await api("POST", "/subscriptions", { vendorKeyId: key.id, url: endpoint.url, events });
  expect(created.status).toBe(201);
  const secret = (created.body.secret as { secret: string }).secret;
  const verifier = createWebhookVerifier({ secrets: { 1: secret } });
  return { key, endpoint, subscriptionId: String(created.body.id), verifier };
}

function bookedBy(vendorKeyId: string, appointmentId: string, leadId = "lead_x") {
  return settle(
    t.gateway,
    settledSubmission(acme.company.id, vendorKeyId, {
      kind: "appointment",
      status: "forwarded",
      canonicalBody: { leadId, startsAt: STARTS, endsAt: ENDS, notes: "gate code 1234", idempotencyKey: "k-12345678" },
      result: { appointmentId },
    }),
  );
}

async function platformSays(envelope: ReturnType<typeof platformEnvelope>) {
  const answer = await deliverToGateway(t.url, acme.company.id, JSON.stringify(envelope), { secret: PLATFORM_SECRET });
  expect(answer.status).toBe(200);
}

describe("§1 booking vendor: appointment.booked for the appointments it booked", () => {
  it("confirms a 201 booking itself (§4.2 rule 2), signed so the vendor's verifier accepts it", async () => {
    const a = await vendor("booking_vendor", ["appointment.booked"]);
    await bookedBy(a.key.id, "apt_confirm_1");
    await waitFor(() => a.endpoint.received.length === 1, 5_000, "confirmation");
    const [first] = a.endpoint.received;
    const verified = await a.verifier.verify({ headers: first?.headers ?? {}, rawBody: first?.raw ?? "" });
    expect(verified.ok).toBe(true);
    const body = a.endpoint.bodies()[0];
    expect(body?.event).toBe("appointment.booked");
    expect(body?.resource).toEqual({ type: "appointment", id: "apt_confirm_1", version: 1 });
    expect(body?.data).toMatchObject({
      change: "created",
      appointmentId: "apt_confirm_1",
      startsAt: STARTS,
      endsAt: ENDS,
    });
    // §1: no quote or project data; the notes are not the vendor's to read back either.
    expect(JSON.stringify(body)).not.toContain("gate code");
  });

  it("relays every later change once, and not the platform's own report of the gateway's booking", async () => {
    const a = await vendor("booking_vendor", ["appointment.booked"]);
    await bookedBy(a.key.id, "apt_moves_1");
    await waitFor(() => a.endpoint.received.length === 1, 5_000, "confirmation");
    const customer = { name: "Ada Lovelace", phone: "5550100", address: "1 Main St", email: "ada@example.com" };
    const created = platformEnvelope({
      resource: { type: "appointment", id: "apt_moves_1", version: 1 },
      data: { change: "created", appointmentId: "apt_moves_1", startsAt: STARTS, endsAt: ENDS, customer },
    });
    const moved = platformEnvelope({
      resource: { type: "appointment", id: "apt_moves_1", version: 2 },
      data: {
        change: "moved",
        appointmentId: "apt_moves_1",
        projectId: "prj_secret",
        startsAt: "2026-09-02T09:00:00.000Z",
        endsAt: "2026-09-02T10:00:00.000Z",
        customer,
        quote: { price: 12_000 },
      },
    });
    await platformSays(created);
    await platformSays(moved);
    await platformSays(moved); // the same event again (a platform retry): processed once (§6.6)
    await waitFor(() => a.endpoint.received.length >= 2, 5_000, "the move");
    await sleep(300);
    expect(a.endpoint.received).toHaveLength(2);
    const relayed = a.endpoint.bodies()[1];
    expect(relayed?.data).toEqual({
      change: "moved",
      appointmentId: "apt_moves_1",
      startsAt: "2026-09-02T09:00:00.000Z",
      endsAt: "2026-09-02T10:00:00.000Z",
      customer: { name: "Ada Lovelace", phone: "5550100", address: "1 Main St" },
    });
    expect(JSON.stringify(relayed)).not.toMatch(/prj_secret|price|email/);
  });

  it("never tells vendor B about vendor A's appointment", async () => {
    const a = await vendor("booking_vendor", ["appointment.booked"]);
    const b = await vendor("booking_vendor", ["appointment.booked"]);
    await bookedBy(a.key.id, "apt_isolated_1");
    await platformSays(
      platformEnvelope({
        resource: { type: "appointment", id: "apt_isolated_1", version: 2 },
        data: { change: "moved", appointmentId: "apt_isolated_1", startsAt: STARTS, endsAt: ENDS },
      }),
    );
    await waitFor(() => a.endpoint.received.length === 2, 5_000, "A's deliveries");
    await sleep(300);
    expect(b.endpoint.received).toHaveLength(0);
  });

  it("does not relay changes of appointments booked outside the gateway", async () => {
    const a = await vendor("booking_vendor", ["appointment.booked"]);
    await platformSays(
      platformEnvelope({
        resource: { type: "appointment", id: "apt_elsewhere", version: 1 },
        data: { change: "created", appointmentId: "apt_elsewhere", startsAt: STARTS, endsAt: ENDS },
      }),
    );
    await sleep(300);
    expect(a.endpoint.received).toHaveLength(0);
  });
});

describe("§1 lead source: its submissions' outcome, and the stages of leads it sourced", () => {
  it("gets submission.forwarded with the lead id and created/merged status only", async () => {
    const l = await vendor("lead_source", ["submission.forwarded", "submission.failed"]);
    await settle(
      t.gateway,
      settledSubmission(acme.company.id, l.key.id, {
        kind: "lead",
        status: "forwarded",
        canonicalBody: { fullName: "Ada", email: "a@example.com", phone: "5550100", address: "1 Main St" },
        result: { status: "merged", reason: "address belongs to a sold project", projectId: "prj_sold" },
      }),
    );
    const failed = await settle(
      t.gateway,
      settledSubmission(acme.company.id, l.key.id, {
        kind: "lead",
        status: "failed",
        upstreamStatus: 400,
        lastError: "email: Invalid email address",
      }),
    );
    await waitFor(() => l.endpoint.received.length === 2, 5_000, "two outcomes");
    const [forwarded, failure] = l.endpoint.bodies();
    expect(forwarded?.event).toBe("submission.forwarded");
    expect(forwarded?.data).toMatchObject({ kind: "lead", status: "merged" });
    expect(JSON.stringify(forwarded)).not.toContain("prj_sold");
    expect(failure?.event).toBe("submission.failed");
    expect(failure?.data).toMatchObject({ submissionId: failed.id, status: "failed", upstreamStatus: 400 });
  });

  it("gets quote.sent for a lead it created as {leadId, stage}, never the price; another source gets nothing", async () => {
    const l = await vendor("lead_source", ["quote.sent", "submission.forwarded"]);
    const other = await vendor("lead_source", ["quote.sent"]);
    await settle(
      t.gateway,
      settledSubmission(acme.company.id, l.key.id, {
        kind: "lead",
        status: "forwarded",
        result: { status: "created", leadId: "lead_sourced_1" },
      }),
    );
    await waitFor(() => l.endpoint.received.length === 1, 5_000, "submission.forwarded");
    expect(l.endpoint.bodies()[0]?.data).toMatchObject({ status: "created", leadId: "lead_sourced_1" });
    await platformSays(
      platformEnvelope({
        event: "quote.sent",
        resource: { type: "quote", id: "quo_1", version: 1 },
        data: { leadId: "lead_sourced_1", total: 18_500, options: [{ price: 18_500 }] },
      }),
    );
    await waitFor(() => l.endpoint.received.length === 2, 5_000, "quote.sent");
    const quote = l.endpoint.bodies()[1];
    expect(quote?.data).toEqual({ leadId: "lead_sourced_1", stage: "quote_sent" });
    expect(JSON.stringify(quote)).not.toMatch(/18500|quo_1/);
    await sleep(200);
    expect(other.endpoint.received).toHaveLength(0);
  });

  it("refuses events outside the partner type's groups at subscription time", async () => {
    const key = await acme.issueKey({ partnerType: "booking_vendor" });
    const refused = await api("POST", "/subscriptions", {
      vendorKeyId: key.id,
      url: "http://127.0.0.1:9/hooks",
      events: ["quote.sent"],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe("events");
  });
});

describe("§7 tenant isolation of subscriptions", () => {
  it("answers 404 for another company's subscription and vendor key", async () => {
    const a = await vendor("booking_vendor", ["appointment.booked"]);
    const rival = await seedCompany(t.gateway, "Rival");
    const rivalApi = ownerApi(t.url, await bearer(t.url, rival.email));
    expect((await rivalApi("GET", `/subscriptions/${a.subscriptionId}`)).status).toBe(404);
    expect((await rivalApi("DELETE", `/subscriptions/${a.subscriptionId}`)).status).toBe(404);
    expect((await rivalApi("POST", `/subscriptions/${a.subscriptionId}/test`)).status).toBe(404);
    const stolen = await rivalApi("POST", "/subscriptions", {
      vendorKeyId: a.key.id,
      url: "http://127.0.0.1:9/hooks",
      events: ["appointment.booked"],
    });
    expect(stolen.status).toBe(404);
  });
});
