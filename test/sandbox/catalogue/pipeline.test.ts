import { describe, expect, it } from "vitest";
import { send } from "../support.js";
import { consoleCall, type Receiver, startReceiver, waitFor, webhookSandboxPerTest } from "../webhooks/support.js";

const TOKEN = "admin-token-for-webhook-tests";
const t = webhookSandboxPerTest();

const call = (method: string, path: string, json?: unknown, as = t.session) =>
  consoleCall(t.sandbox, method, path, { session: as, json });
const change = (leadId: string, json: Record<string, unknown>) =>
  send(t.sandbox.app, "POST", `/sandbox/admin/leads/${leadId}/events`, { token: TOKEN, json });

async function subscribe(body: Record<string, unknown>): Promise<Receiver> {
  const hook = await startReceiver();
  t.receivers.push(hook);
  const created = await call("POST", "/partner-api/webhooks", { url: hook.url, ...body });
  expect(created.status).toBe(201);
  hook.secrets.set(1, String(created.body.secret));
  return hook;
}

describe("§6.7 the sandbox's sales pipeline (admin)", () => {
  it("each change is a version with its event; a stage move also records project.stage_changed", async () => {
    const lead = "lead_sunrise_0002";
    const sent = await change(lead, { event: "quote.sent" });
    expect(sent.body).toMatchObject({
      event: "quote.sent",
      leadId: lead,
      version: 1,
      stage: "QUOTE_SENT",
      events: [
        { event: "quote.sent", eventId: sent.body.eventId },
        { event: "project.stage_changed", eventId: expect.stringMatching(/^evt_/) },
      ],
    });
    const paid = await change(lead, { event: "deposit.paid" });
    expect(paid.body).toMatchObject({
      version: 2,
      stage: "QUOTE_SENT",
      events: [{ event: "deposit.paid" }, { event: "journal.entry_posted" }],
    });
    const events = t.sandbox.admin.events().filter((e) => e.resource.id === lead);
    expect(events.map((e) => [e.event, e.resource.version])).toEqual([
      ["quote.sent", 1],
      ["project.stage_changed", 1],
      ["deposit.paid", 2],
    ]);
    expect(events[1]?.data).toMatchObject({ stage: "QUOTE_SENT", previousStage: "LEAD" });
  });

  it("422 for a change the pipeline does not allow; 404 for an unknown lead or another company's project", async () => {
    const lead = "lead_sunrise_0003";
    expect((await change(lead, { event: "quote.viewed" })).status).toBe(422);
    expect((await change(lead, { event: "quote.accepted" })).status).toBe(422);
    expect((await change(lead, { event: "deposit.refunded" })).status).toBe(422);
    expect((await change(lead, { event: "project.stage_changed" })).status).toBe(422);
    expect((await change(lead, { event: "deposit.paid" })).status).toBe(201);
    expect((await change(lead, { event: "deposit.paid" })).status).toBe(422);
    expect((await change(lead, { event: "project.stage_changed", stage: "PERMITTING" })).status).toBe(201);
    expect((await change(lead, { event: "project.stage_changed", stage: "PERMITTING" })).status).toBe(422);
    expect((await change(lead, { event: "project.stage_changed", stage: "lower case" })).status).toBe(400);
    expect((await change(lead, { event: "quote.sent", projectId: "prj_brightline_3001" })).status).toBe(404);
    expect((await change("lead_nope", { event: "quote.sent" })).status).toBe(404);
    expect((await change(lead, { event: "project.completed" })).status).toBe(201);
    const after = await change(lead, { event: "invoice.issued" });
    expect([after.status, after.body.error]).toEqual([422, "the project is completed; its pipeline no longer changes"]);
  });
});

describe("§1 partners: the type and the keys belong to the partner", () => {
  it("keys handed to a partner must be free general keys of the company; the list shows them", async () => {
    const first = await call("POST", "/partner-api/partners", {
      name: "Leads Inc",
      type: "lead_source",
      keyIds: ["svc_test_SUNld0001"],
    });
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^ptn_/),
      type: "lead_source",
      keyIds: ["svc_test_SUNld0001"],
    });
    for (const keyIds of [["svc_test_SUNld0001"], ["svc_test_BRTgn0001"], ["svc_test_SUNca0001"], ["svc_test_nope"]]) {
      const reply = await call("POST", "/partner-api/partners", { name: "Other", type: "booking_vendor", keyIds });
      expect([keyIds, reply.status, reply.body.field]).toEqual([keyIds, 400, "keyIds"]);
    }
    expect((await call("POST", "/partner-api/partners", { name: "Me", type: "licensee" })).status).toBe(400);
    const listed = await call("GET", "/partner-api/partners");
    expect(listed.body.partners).toEqual([
      expect.objectContaining({ id: first.body.id, keyIds: ["svc_test_SUNld0001"] }),
    ]);
    const other = t.sandbox.admin.ownerSession("org_brightline").sessionToken;
    expect((await call("GET", "/partner-api/partners", undefined, other)).body.partners).toEqual([]);
  });

  it("a key issued to the partner later counts: the lead source hears about the leads it creates", async () => {
    const partner = await call("POST", "/partner-api/partners", { name: "Late Leads", type: "lead_source" });
    const partnerId = String(partner.body.id);
    const hook = await subscribe({ partnerId, events: ["quote.sent"] });
    const issued = await send(t.sandbox.app, "POST", "/sandbox/admin/keys", {
      token: TOKEN,
      json: { companyId: "org_sunrise", kind: "general", partnerId },
    });
    expect(issued.body).toMatchObject({ partnerId });
    const refused = await send(t.sandbox.app, "POST", "/sandbox/admin/keys", {
      token: TOKEN,
      json: { companyId: "org_brightline", kind: "general", partnerId },
    });
    expect([refused.status, refused.body.field]).toEqual([400, "partnerId"]);
    const lead = await send(t.sandbox.app, "POST", "/api/inbound/leads", {
      key: String(issued.body.key),
      json: {
        fullName: "Late Lead",
        email: "late@example.com",
        phone: "+1 602 555 0111",
        address: "8 Late Lane, Phoenix, AZ 85004",
      },
    });
    t.sandbox.admin.emitLeadEvent({ leadId: "lead_sunrise_0001", event: "quote.sent" });
    t.sandbox.admin.emitLeadEvent({ leadId: String(lead.body.leadId), event: "quote.sent" });
    await waitFor("the delivery", () => hook.received.length === 1);
    await waitFor("nothing pending", () => t.sandbox.admin.stats().webhooks.deliveries.pending === 0);
    expect(hook.received.map((r) => r.envelope.data)).toEqual([{ leadId: lead.body.leadId, stage: "QUOTE_SENT" }]);
  });

  it("a distributor hears project.completed only while the company opts it in", async () => {
    const partner = await call("POST", "/partner-api/partners", { name: "Panels Co", type: "distributor" });
    const id = String(partner.body.id);
    const hook = await subscribe({ partnerId: id, events: ["project.completed"] });
    const licensee = await subscribe({ events: ["project.completed"] });
    t.sandbox.admin.emitLeadEvent({ leadId: "lead_sunrise_0001", event: "project.completed" });
    await waitFor("the licensee's delivery", () => licensee.received.length === 1);
    await waitFor("nothing pending", () => t.sandbox.admin.stats().webhooks.deliveries.pending === 0);
    expect(hook.received).toEqual([]);

    const optIn = await call("PUT", `/partner-api/partners/${id}/completed-projects-opt-in`, {
      completedProjectsOptIn: true,
    });
    expect(optIn.body).toMatchObject({ id, completedProjectsOptIn: true });
    t.sandbox.admin.emitLeadEvent({ leadId: "lead_sunrise_0002", event: "project.completed" });
    await waitFor("the distributor's delivery", () => hook.received.length === 1);
    expect(hook.received[0]?.envelope.data).toEqual({ projectId: null, completedAt: expect.any(String) });
    const other = t.sandbox.admin.ownerSession("org_brightline").sessionToken;
    const foreign = await call(
      "PUT",
      `/partner-api/partners/${id}/completed-projects-opt-in`,
      { completedProjectsOptIn: false },
      other,
    );
    expect(foreign.status).toBe(404);
  });
});
