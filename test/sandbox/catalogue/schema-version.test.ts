import { describe, expect, it } from "vitest";
import { SecretRing } from "../../../src/contract/secret-ring.js";
import { webhookSubscriptions } from "../../../src/sandbox/db/schema/index.js";
import { consoleCall, type Receiver, startReceiver, waitFor, webhookSandboxPerTest } from "../webhooks/support.js";

const t = webhookSandboxPerTest();

const call = (method: string, path: string, json?: unknown) =>
  consoleCall(t.sandbox, method, path, { session: t.session, json });

async function subscribe(body: Record<string, unknown>): Promise<Receiver> {
  const hook = await startReceiver();
  t.receivers.push(hook);
  const created = await call("POST", "/partner-api/webhooks", { url: hook.url, ...body });
  expect(created.status).toBe(201);
  hook.secrets.set(1, String(created.body.secret));
  return hook;
}

describe("§6.1, §9.4 schemaVersion: a breaking change reaches only the subscriptions that opted in", () => {
  it("deposit.paid: version 2 (money in minor units) to the opted-in, version 1 to the rest, same event id", async () => {
    const current = await subscribe({ events: ["deposit.paid"] });
    const opted = await subscribe({ events: ["deposit.paid", "quote.sent"], schemaVersions: { "deposit.paid": 2 } });
    t.sandbox.admin.emitLeadEvent({ leadId: "lead_sunrise_0001", event: "quote.sent", amountCents: 1_000_000 });
    t.sandbox.admin.emitLeadEvent({ leadId: "lead_sunrise_0001", event: "deposit.paid", amountCents: 150_001 });
    await waitFor("both deliveries", () => current.received.length === 1 && opted.received.length === 2);
    const v1 = current.received[0]?.envelope;
    const v2 = opted.received.find((r) => r.envelope.event === "deposit.paid")?.envelope;
    expect(v1).toMatchObject({ schemaVersion: 1, data: { deposit: { amount: 1500.01, currency: "USD" } } });
    expect(v2).toMatchObject({
      schemaVersion: 2,
      data: { deposit: { amount: { amountCents: 150_001, currency: "USD" } } },
    });
    expect(v2?.data.deposit).not.toHaveProperty("currency");
    expect(v2?.id).toBe(v1?.id);
    // The opt-in is per event: quote.sent, which has no version 2, stays at version 1 for the same subscription.
    const quote = opted.received.find((r) => r.envelope.event === "quote.sent")?.envelope;
    expect(quote).toMatchObject({ schemaVersion: 1, data: { quote: { amount: 10000, currency: "USD" } } });
    expect(opted.received.every((r) => r.verification.ok)).toBe(true);
  });

  it("a financing partner opted in gets its own view at version 2", async () => {
    const partner = await call("POST", "/partner-api/partners", { name: "Lender", type: "financing" });
    const hook = await subscribe({
      partnerId: partner.body.id,
      events: ["deposit.paid"],
      schemaVersions: { "deposit.paid": 2 },
    });
    t.sandbox.admin.emitLeadEvent({ leadId: "lead_sunrise_0001", event: "deposit.paid", amountCents: 99_999 });
    await waitFor("the delivery", () => hook.received.length === 1);
    expect(hook.received[0]?.envelope).toMatchObject({
      schemaVersion: 2,
      data: {
        depositId: expect.stringMatching(/^dep_/),
        amount: { amountCents: 99_999, currency: "USD" },
        status: "PAID",
      },
    });
  });

  it("400 for a schema version an event does not have", async () => {
    for (const schemaVersions of [{ "deposit.paid": 3 }, { "quote.sent": 2 }, { "no.such": 2 }]) {
      const reply = await call("POST", "/partner-api/webhooks", {
        url: "http://127.0.0.1:4000/hooks",
        events: ["deposit.paid"],
        schemaVersions,
      });
      expect([schemaVersions, reply.status, reply.body.field]).toEqual([schemaVersions, 400, "schemaVersions"]);
    }
  });
});

describe("§1 routing holds even for a subscription that asked for every event", () => {
  it("a lead-source row listing every event still gets only its own: lead id and stage of the lead it sourced", async () => {
    const hook = await startReceiver();
    t.receivers.push(hook);
    const partner = await call("POST", "/partner-api/partners", {
      name: "Leads Inc",
      type: "lead_source",
      keyIds: ["svc_test_SUNld0001"],
    });
    // Written past the console's check, as a row from an older release might be.
    const secret = "whsec_routing_test_secret_0123456789abcdefghij";
    hook.secrets.set(1, secret);
    const now = new Date().toISOString();
    t.sandbox.admin.ctx.db
      .insert(webhookSubscriptions)
      .values({
        id: "sub_every_event",
        companyId: "org_sunrise",
        url: hook.url,
        events: [
          "quote.sent",
          "quote.viewed",
          "deposit.paid",
          "invoice.issued",
          "appointment.booked",
          "project.completed",
        ],
        partnerType: "lead_source",
        partnerId: String(partner.body.id),
        partnerKeyIds: [],
        schemaVersions: {},
        secrets: SecretRing.first(secret).toState(),
        version: 1,
        createdAt: now,
        updatedAt: now,
      })
      .run();
    const lead = await t.sandbox.app.request("/api/inbound/leads", {
      method: "POST",
      headers: { "x-api-key": t.sandbox.key("sunrise-leads-only"), "content-type": "application/json" },
      body: JSON.stringify({
        fullName: "Sam Sourced",
        email: "sam@example.com",
        phone: "+1 602 555 0142",
        address: "12 Source Street, Phoenix, AZ 85004",
      }),
    });
    const leadId = String(((await lead.json()) as { leadId: string }).leadId);
    for (const lead of [leadId, "lead_sunrise_0001"]) {
      for (const event of [
        "quote.sent",
        "quote.viewed",
        "deposit.paid",
        "invoice.issued",
        "project.completed",
      ] as const) {
        t.sandbox.admin.emitLeadEvent({ leadId: lead, event });
      }
    }
    await waitFor("the two deliveries", () => hook.received.length === 2);
    await waitFor("nothing pending", () => t.sandbox.admin.stats().webhooks.deliveries.pending === 0);
    expect(hook.received.map((r) => [r.envelope.event, r.envelope.data])).toEqual([
      ["quote.sent", { leadId, stage: "QUOTE_SENT" }],
      ["project.completed", { leadId, stage: "COMPLETED" }],
    ]);
  });
});
