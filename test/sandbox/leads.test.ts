import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lead, newSandbox, send } from "./support.js";

let sandbox: ReturnType<typeof newSandbox>;
beforeEach(() => {
  sandbox = newSandbox();
});
afterEach(() => sandbox.close());

const post = (body: unknown, key = sandbox.key("sunrise-general")) =>
  send(sandbox.app, "POST", "/api/inbound/leads", { key, json: body });
const leadId = (r: { body: Record<string, unknown> }) => String(r.body.leadId);

describe("§3.3 merge: contact details and history", () => {
  it("a merge updates name, email and phone and keeps the first address", async () => {
    const first = await post(lead("9 Pine Street, Phoenix, AZ 85004"));
    await post(
      lead("9 pine st phoenix az 85004-7777", {
        fullName: "Robin T. Test",
        email: "new@example.com",
        phone: "602 555 0199",
      }),
    );
    const { lead: stored } = sandbox.admin.lead(leadId(first));
    expect(stored).toMatchObject({
      fullName: "Robin T. Test",
      email: "new@example.com",
      phone: "602 555 0199",
      address: "9 Pine Street, Phoenix, AZ 85004",
    });
  });

  it("every submission is recorded in the lead's history, in order", async () => {
    const first = await post(lead("10 Pine Street, Phoenix, AZ 85004"));
    await post(lead("10 Pine St., Phoenix, AZ 85004", { fullName: "Second" }));
    await post(lead("10 PINE STREET PHOENIX AZ 85004", { fullName: "Third" }));
    const { history } = sandbox.admin.lead(leadId(first));
    expect(history.map((h) => [h.outcome, h.body.fullName])).toEqual([
      ["created", "Robin Test"],
      ["merged", "Second"],
      ["merged", "Third"],
    ]);
  });

  it("smsConsent is stored; a merge without it keeps the stored value; a merge with it replaces it (§2.7)", async () => {
    const address = "11 Pine Street, Phoenix, AZ 85004";
    const id = leadId(await post(lead(address, { smsConsent: true })));
    await post(lead(address));
    expect(sandbox.admin.lead(id).lead.smsConsent).toBe(true);
    await post(lead(address, { smsConsent: false }));
    expect(sandbox.admin.lead(id).lead.smsConsent).toBe(false);
  });

  it("a lead never given smsConsent stores none (null), not false", async () => {
    const id = leadId(await post(lead("12 Pine Street, Phoenix, AZ 85004")));
    expect(sandbox.admin.lead(id).lead.smsConsent).toBeNull();
  });

  it("a closed lead at the address does not take the merge: a new lead is created", async () => {
    // lead_sunrise_0003 is closed at this address in the default seed.
    const reply = await post(lead("19 Old Mill Rd, Mesa, AZ 85201"));
    expect(reply.status).toBe(201);
    expect(leadId(reply)).not.toBe("lead_sunrise_0003");
  });

  it("a seeded open lead merges with a differently spelled address", async () => {
    const reply = await post(lead("7 desert bloom ln. unit 3, tempe az 85281"));
    expect(reply).toMatchObject({ status: 200, body: { status: "merged", leadId: "lead_sunrise_0002" } });
  });
});

describe("§2.7 attribution", () => {
  it("a new lead is attributed to the person set on the key", async () => {
    const byAna = leadId(await post(lead("13 Pine Street, Phoenix, AZ 85004")));
    const byBen = leadId(await post(lead("14 Pine Street, Phoenix, AZ 85004"), sandbox.key("sunrise-leads-only")));
    expect(sandbox.admin.lead(byAna).lead.personId).toBe("per_sunrise_ana");
    expect(sandbox.admin.lead(byBen).lead.personId).toBe("per_sunrise_ben");
  });

  it("a merge through another key keeps the original attribution", async () => {
    const id = leadId(await post(lead("15 Pine Street, Phoenix, AZ 85004")));
    await post(lead("15 Pine Street, Phoenix, AZ 85004"), sandbox.key("sunrise-leads-only"));
    expect(sandbox.admin.lead(id).lead.personId).toBe("per_sunrise_ana");
  });
});

describe("§3.3 sold projects are never overwritten", () => {
  it("a submission at a sold project's address leaves the project and creates no lead", async () => {
    const before = sandbox.admin.stats().leads.count;
    const reply = await post(lead("100 Sunset Blvd, Phoenix, AZ 85004", { fullName: "Intruder" }));
    expect(reply.body).toEqual({
      status: "merged",
      reason: "address belongs to a sold project",
      projectId: "prj_sunrise_0100",
    });
    expect(sandbox.admin.stats().leads.count).toBe(before);
    const job = await send(sandbox.app, "POST", "/api/inbound/leads", {
      key: sandbox.key("sunrise-general"),
      json: lead("100 Sunset Boulevard, Phoenix, AZ 85004"),
    });
    expect(job.body.projectId).toBe("prj_sunrise_0100");
  });

  it("the same address in another company is not that company's sold project", async () => {
    const reply = await post(lead("100 Sunset Boulevard, Phoenix, AZ 85004"), sandbox.key("brightline-general"));
    expect(reply.status).toBe(201);
  });
});
