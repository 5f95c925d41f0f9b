import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookVerifier } from "../../../src/receiver/index.js";
import {
  bearer,
  type Company,
  deliverToGateway,
  deliveryLog,
  ownerApi,
  platformEnvelope,
  platformEvents,
  type Receiver,
  seedCompany,
  settle,
  settledSubmission,
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

/** The platform delivers `envelope`; the gateway's 2xx comes once the event and its fan-out are stored (§6.4.1). */
async function platformSays(envelope: ReturnType<typeof platformEnvelope>) {
  const answer = await deliverToGateway(t.url, acme.company.id, JSON.stringify(envelope), { secret: PLATFORM_SECRET });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** How many vendor deliveries the gateway made of a platform event it processed (undefined: not stored). */
async function fannedOut(envelope: ReturnType<typeof platformEnvelope>): Promise<number | undefined> {
  return (await platformEvents(api)).find((e) => e.id === envelope.id)?.fannedOut;
}

/**
 * A subscription's deliveries once every one of them is answered: a vendor's receiver has then seen all it ever
 * will of the events fanned out so far (fan-out commits before the platform's 2xx), each as often as it was sent.
 */
async function settledDeliveries(subscriptionId: string) {
  await expect
    .poll(async () => (await deliveryLog(api, subscriptionId)).filter((d) => d.status !== "delivered"), {
      timeout: 5_000,
    })
    .toEqual([]);
  return deliveryLog(api, subscriptionId);
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
    expect(await platformSays(created)).toEqual({ received: true });
    expect(await platformSays(moved)).toEqual({ received: true });
    // The same event again (a platform retry): acknowledged, processed once (§6.6).
    expect(await platformSays(moved)).toEqual({ received: true, duplicate: true });
    // Each processed: the platform's report of the gateway's own booking made no delivery, the move one.
    expect(await fannedOut(created)).toBe(0);
    expect(await fannedOut(moved)).toBe(1);
    const deliveries = await settledDeliveries(a.subscriptionId);
    expect(deliveries.map((d) => [d.sourceEventId, d.attempts])).toEqual([
      [moved.id, 1],
      [null, 1],
    ]);
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
    const moved = platformEnvelope({
      resource: { type: "appointment", id: "apt_isolated_1", version: 2 },
      data: { change: "moved", appointmentId: "apt_isolated_1", startsAt: STARTS, endsAt: ENDS },
    });
    await platformSays(moved);
    // Positive control: the move was processed, and relayed to A, once.
    expect(await fannedOut(moved)).toBe(1);
    expect((await settledDeliveries(a.subscriptionId)).map((d) => d.sourceEventId)).toEqual([moved.id, null]);
    expect(a.endpoint.received).toHaveLength(2);
    expect(await deliveryLog(api, b.subscriptionId)).toEqual([]);
    expect(b.endpoint.received).toHaveLength(0);
  });

  it("does not relay changes of appointments booked outside the gateway", async () => {
    const a = await vendor("booking_vendor", ["appointment.booked"]);
    await bookedBy(a.key.id, "apt_booked_here");
    await waitFor(() => a.endpoint.received.length === 1, 5_000, "confirmation");
    const elsewhere = platformEnvelope({
      resource: { type: "appointment", id: "apt_elsewhere", version: 1 },
      data: { change: "created", appointmentId: "apt_elsewhere", startsAt: STARTS, endsAt: ENDS },
    });
    // Positive control: a change of the appointment it booked here, reported right after, is relayed.
    const movedHere = platformEnvelope({
      resource: { type: "appointment", id: "apt_booked_here", version: 2 },
      data: { change: "moved", appointmentId: "apt_booked_here", startsAt: STARTS, endsAt: ENDS },
    });
    await platformSays(elsewhere);
    await platformSays(movedHere);
    expect(await fannedOut(elsewhere)).toBe(0);
    expect(await fannedOut(movedHere)).toBe(1);
    expect((await settledDeliveries(a.subscriptionId)).map((d) => d.sourceEventId)).toEqual([movedHere.id, null]);
    expect(a.endpoint.bodies().map((b) => (b.resource as { id: string }).id)).toEqual([
      "apt_booked_here",
      "apt_booked_here",
    ]);
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
    const quoteSent = platformEnvelope({
      event: "quote.sent",
      resource: { type: "quote", id: "quo_1", version: 1 },
      data: { leadId: "lead_sourced_1", total: 18_500, options: [{ price: 18_500 }] },
    });
    await platformSays(quoteSent);
    await waitFor(() => l.endpoint.received.length === 2, 5_000, "quote.sent");
    const quote = l.endpoint.bodies()[1];
    expect(quote?.data).toEqual({ leadId: "lead_sourced_1", stage: "quote_sent" });
    expect(JSON.stringify(quote)).not.toMatch(/18500|quo_1/);
    // The event was processed and made one delivery, the source's; none for the other source.
    expect(await fannedOut(quoteSent)).toBe(1);
    expect(await deliveryLog(api, other.subscriptionId)).toEqual([]);
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
