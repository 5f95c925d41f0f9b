import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDRESS_2,
  ADDRESS_3,
  address500,
  address501,
  EMAIL_254,
  EMAIL_255,
  NAME_1,
  NAME_120,
  NAME_120_ACCENTED,
  NAME_121,
  newLead,
  PHONE_6,
  PHONE_7,
  PHONE_40,
  PHONE_41,
  PHONE_WITH_DOTS,
  PHONE_WITH_LETTERS,
  uniqueNumber,
} from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(() => target.close());

const postLead = (json: unknown, key = target.keys.general) =>
  call(target, "POST", "/api/inbound/leads", { key, json });

function expectFieldError(reply: Reply, field: string): void {
  expect(reply.status).toBe(400);
  expect(errorMessage(reply)).toContain(field);
}

function expectAccepted(reply: Reply): void {
  expect([200, 201]).toContain(reply.status);
}

describe("§2.7 Lead (request)", () => {
  it.each(["fullName", "email", "phone", "address"])("%s is required", async (field) => {
    const lead = newLead();
    delete lead[field];
    expectFieldError(await postLead(lead), field);
  });

  it("fullName takes 1 to 120 characters", async () => {
    expectAccepted(await postLead(newLead({ fullName: NAME_1 })));
    expectAccepted(await postLead(newLead({ fullName: NAME_120 })));
    expectFieldError(await postLead(newLead({ fullName: NAME_121 })), "fullName");
    expectFieldError(await postLead(newLead({ fullName: "" })), "fullName");
  });

  it("fullName counts characters, not bytes", async () => {
    expectAccepted(await postLead(newLead({ fullName: NAME_120_ACCENTED })));
  });

  it("email must be a valid address of up to 254 characters", async () => {
    expectAccepted(await postLead(newLead({ email: EMAIL_254 })));
    expectFieldError(await postLead(newLead({ email: EMAIL_255 })), "email");
    expectFieldError(await postLead(newLead({ email: "jordan.example.com" })), "email");
    expectFieldError(await postLead(newLead({ email: "jordan@" })), "email");
  });

  it("phone takes 7 to 40 characters", async () => {
    expectAccepted(await postLead(newLead({ phone: PHONE_7 })));
    expectAccepted(await postLead(newLead({ phone: PHONE_40 })));
    expectFieldError(await postLead(newLead({ phone: PHONE_6 })), "phone");
    expectFieldError(await postLead(newLead({ phone: PHONE_41 })), "phone");
  });

  it("phone accepts digits, spaces, +, -, ( ) and nothing else", async () => {
    expectAccepted(await postLead(newLead({ phone: "+1 (602) 555-0100" })));
    expectFieldError(await postLead(newLead({ phone: PHONE_WITH_LETTERS })), "phone");
    expectFieldError(await postLead(newLead({ phone: PHONE_WITH_DOTS })), "phone");
  });

  it("address takes 3 to 500 characters", async () => {
    expectAccepted(await postLead(newLead({ address: `${ADDRESS_3}` })));
    expectAccepted(await postLead(newLead({ address: address500() })));
    expectFieldError(await postLead(newLead({ address: ADDRESS_2 })), "address");
    expectFieldError(await postLead(newLead({ address: address501() })), "address");
  });

  it("smsConsent is optional and boolean", async () => {
    expectAccepted(await postLead(newLead({ smsConsent: true })));
    expectAccepted(await postLead(newLead({ smsConsent: false })));
    expectFieldError(await postLead(newLead({ smsConsent: "yes" })), "smsConsent");
  });

  it("a field of the wrong type is 400 naming it", async () => {
    expectFieldError(await postLead(newLead({ fullName: 42 })), "fullName");
  });

  it("a new lead answers 201 {status: created, leadId} with the lead_ prefix", async () => {
    const reply = await postLead(newLead());
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ status: "created", leadId: expect.stringMatching(/^lead_/) });
  });
});

describe("§3.3 Lead merge behaviour", () => {
  it("an open lead at the same address merges: 200 {status: merged} with the same leadId", async () => {
    const lead = newLead();
    const first = await postLead(lead);
    expect(first.status).toBe(201);
    const second = await postLead({ ...lead, fullName: "Jordan Q. Example", phone: "+1 602 555 0199" });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ status: "merged", leadId: (first.body as { leadId: string }).leadId });
  });

  it("the address is compared normalised: case and spacing do not make a new lead", async () => {
    const number = uniqueNumber();
    const first = await postLead(newLead({ address: `${number} Conformance Way, Phoenix, AZ 85004` }));
    const second = await postLead(newLead({ address: `  ${number}  conformance way,  PHOENIX,  az  85004 ` }));
    expect(second.status).toBe(200);
    expect((second.body as { leadId: string }).leadId).toBe((first.body as { leadId: string }).leadId);
  });

  it("an address of a sold project answers 200 merged with reason and projectId, and no leadId", async () => {
    const reply = await postLead(newLead({ address: target.fixtures.soldProjectAddress }));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: "merged",
      reason: expect.any(String),
      projectId: target.fixtures.soldProjectId,
    });
    expect((reply.body as { reason: string }).reason).not.toBe("");
  });

  it("the sold project stays the answer on every later submission (it is never overwritten by a lead)", async () => {
    for (let i = 0; i < 2; i++) {
      const reply = await postLead(newLead({ address: target.fixtures.soldProjectAddress, fullName: `Other ${i}` }));
      expect((reply.body as { projectId?: string }).projectId).toBe(target.fixtures.soldProjectId);
    }
  });

  it("de-duplication is within the company: another company's lead at the same address is a new lead", async () => {
    const lead = newLead();
    expect((await postLead(lead)).status).toBe(201);
    const other = await postLead(lead, target.keys.otherCompanyGeneral);
    expect(other.status).toBe(201);
  });
});

describe("§4.2 Inbound API: POST /api/inbound/leads", () => {
  it("re-sending the same lead is safe: the same leadId comes back (rule 1)", async () => {
    const lead = newLead({ smsConsent: true });
    const replies = [await postLead(lead), await postLead(lead), await postLead(lead)];
    expect(replies.map((r) => r.status)).toEqual([201, 200, 200]);
    const ids = new Set(replies.map((r) => (r.body as { leadId: string }).leadId));
    expect(ids.size).toBe(1);
  });
});
