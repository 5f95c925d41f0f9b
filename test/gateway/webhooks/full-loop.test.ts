import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../../../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import { createCompany } from "../../../src/gateway/tenants/create-company.js";
import { createOwner } from "../../../src/gateway/tenants/create-owner.js";
import { listen, type RunningServer } from "../../../src/http/server.js";
import { createLogger } from "../../../src/log.js";
import { createWebhookVerifier } from "../../../src/receiver/index.js";
import { type RunningSandbox, startSandbox } from "../../../src/sandbox/index.js";
import { OWNER_PASSWORD, postJson, TEST_PASSWORD_COST } from "../../helpers/gateway.js";
import { testStorage } from "../../helpers/test-store.js";
import {
  bearer,
  deliveryLog,
  type OwnerApi,
  ownerApi,
  platformEvents,
  type Receiver,
  startReceiver,
  waitFor,
} from "./support.js";

/**
 * The full loop: a vendor books through the gateway and gets one signed confirmation; the appointment is moved
 * in the platform (the sandbox), the platform delivers appointment.booked to the gateway, and the vendor gets exactly
 * one more. Real processes on 127.0.0.1: the sandbox (upstream and webhook sender), the gateway with forwarding.
 */
let sandbox: RunningSandbox;
let gateway: Gateway;
let server: RunningServer;
let vendor: Receiver;
let vendorKey: string;
let vendorSecret: string;
let owner: OwnerApi;
let subscriptionId: string;

beforeAll(async () => {
  const silent = createLogger({ level: "silent" });
  sandbox = await startSandbox({
    host: "127.0.0.1",
    port: 0,
    log: silent,
    webhooks: { retryDelaysMs: [100, 200], jitter: 0, pollIntervalMs: 20, timeoutMs: 2_000 },
  });
  // createGateway wires forwarding's settled hook to onSubmissionSettled.
  gateway = await createGateway({
    // TEST_STORE=postgres: a database of its own (test-store.ts).
    ...(await testStorage(":memory:")),
    log: silent,
    masterKey: randomBytes(32).toString("hex"),
    forwarding: {
      upstreamUrl: sandbox.url,
      timeoutMs: 2_000,
    },
    webhooks: { retrySchedule: [100, 200], jitter: 0 },
    settings: { passwordCost: TEST_PASSWORD_COST, webhookLoopbackPorts: "any" },
  });
  server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
  const ctx = gateway.ctx;

  // The company on both sides; the gateway forwards with the company's general key.
  const upstream = sandbox.admin.createCompany({
    name: "Loop Co",
    kind: "company",
    people: [{ name: "Rep", email: "rep@loop.test" }],
    contractors: [],
  });
  const general = sandbox.admin.createKey({
    companyId: upstream.id,
    kind: "general",
    personId: upstream.people[0]?.id,
  });
  const company = await createCompany({ ctx, input: { name: "Loop Co" } });
  const email = "owner@loop.test";
  await createOwner({
    ctx,
    input: { companyId: company.id, email, name: "Owner", role: "admin", password: OWNER_PASSWORD },
  });
  const credential = await createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: { name: "general", value: general.key },
  });
  const issued = await createVendorKey({
    ctx,
    companyId: company.id,
    input: {
      name: "scheduler",
      partnerType: "booking_vendor",
      scopes: ["leads:write", "appointments:write"],
      credentialId: credential.id,
    },
  });
  vendorKey = issued.key;

  // The vendor's subscription at the gateway.
  owner = ownerApi(server.url, await bearer(server.url, email));
  vendor = await startReceiver();
  const sub = await owner("POST", "/subscriptions", {
    vendorKeyId: issued.id,
    url: vendor.url,
    events: ["appointment.booked"],
  });
  vendorSecret = (sub.body.secret as { secret: string }).secret;
  subscriptionId = String(sub.body.id);

  // The company's platform subscription points at the gateway's receiver; the owner loads the secret shown once.
  const session = sandbox.admin.ownerSession(upstream.id);
  const platform = await fetch(`${sandbox.url}/partner-api/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.sessionToken}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `${server.url}/webhooks/platform/${company.id}`, events: ["appointment.booked"] }),
  });
  expect(platform.status).toBe(201);
  const created = (await platform.json()) as { secret: string };
  expect((await owner("POST", "/platform/secrets", { version: 1, secret: created.secret })).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await gateway?.close(1_000);
  await sandbox?.close();
  await vendor?.close();
});

/** The vendor's deliveries once every one is answered (undefined while one is not): all the vendor will ever get. */
async function settledDeliveries() {
  const deliveries = await deliveryLog(owner, subscriptionId);
  return deliveries.every((d) => d.status === "delivered") ? deliveries : undefined;
}

describe("§6 webhooks: the full loop (§4.2 rule 2, §6)", () => {
  it("confirms a booking once, then relays exactly one delivery for a move made in the platform", async () => {
    const lead = await postJson(
      `${server.url}/api/inbound/leads`,
      {
        fullName: "Grace Hopper",
        email: "grace@example.com",
        phone: "+1 555 010 2000",
        address: "9 Loop Rd, Springfield, IL 62701",
      },
      { "x-api-key": vendorKey },
    );
    expect(lead.status).toBe(202);
    const leadSubmission = ((await lead.json()) as { submissionId: string }).submissionId;
    const booking = await postJson(
      `${server.url}/api/inbound/appointments`,
      {
        leadId: leadSubmission,
        startsAt: "2026-12-01T15:00:00Z",
        endsAt: "2026-12-01T16:00:00Z",
        idempotencyKey: "loop-booking-1",
      },
      { "x-api-key": vendorKey },
    );
    expect(booking.status).toBe(202);

    await waitFor(() => vendor.received.length >= 1, 10_000, "the confirmation");
    const confirmation = vendor.bodies()[0] as { resource: { id: string }; data: Record<string, unknown> };
    const appointmentId = confirmation.resource.id;
    expect(appointmentId).toMatch(/^apt_/);
    expect(confirmation.data).toMatchObject({ change: "created", customer: { name: "Grace Hopper" } });
    // The platform's own report of the booking reaches the gateway and is processed (stored with its fan-out, §6.4.1):
    // it adds no delivery, the vendor heard of the booking once.
    const reported = (version: number) => async () =>
      (await platformEvents(owner)).find((e) => e.resourceId === appointmentId && e.resourceVersion === version);
    await expect.poll(reported(1), { timeout: 10_000 }).toMatchObject({ event: "appointment.booked", fannedOut: 0 });
    await expect.poll(settledDeliveries).toHaveLength(1);
    expect(vendor.received).toHaveLength(1);

    sandbox.admin.moveAppointment({ appointmentId, startsAt: "2026-12-02T15:00:00Z", endsAt: "2026-12-02T16:00:00Z" });
    await expect.poll(reported(2), { timeout: 10_000 }).toMatchObject({ event: "appointment.booked", fannedOut: 1 });
    await expect.poll(settledDeliveries).toHaveLength(2);
    expect(vendor.received).toHaveLength(2);
    const moved = vendor.bodies()[1] as { data: Record<string, unknown> };
    expect(moved.data).toMatchObject({ change: "moved", appointmentId, startsAt: "2026-12-02T15:00:00Z" });

    const verifier = createWebhookVerifier({ secrets: { 1: vendorSecret } });
    for (const r of vendor.received)
      expect((await verifier.verify({ headers: r.headers, rawBody: r.raw })).ok).toBe(true);
  });
});
