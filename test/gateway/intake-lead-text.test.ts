import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leadSchema } from "../../src/contract/lead.js";
import { json, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { submissionRow } from "../helpers/store-reads.js";

/**
 * docs/decisions.md, "Lead text at intake": after §2.7 validation the gateway refuses a lead whose text carries a
 * control character or a bidirectional override (400 naming the field), and turns tab and line breaks into spaces.
 */

const NATIVE = `{ "fullName": who, "email": mail, "phone": tel, "address": where }`;
const lead = (overrides: Record<string, unknown> = {}) => ({
  fullName: "Ada Lovelace",
  email: "ada@example.com",
  phone: "+1 (555) 010-2000",
  address: "12 Analytical Way, Springfield",
  ...overrides,
});
const native = (overrides: Record<string, unknown> = {}) => {
  const l = lead(overrides);
  return { who: l.fullName, mail: l.email, tel: l.phone, where: l.address };
};

let t: TestGateway;
let canonicalKey: string;
let mappedKey: string;

beforeAll(async () => {
  t = await startTestGateway({ intakeLimit: { ratePerSecond: 1000, burst: 1000 } });
  const acme = await seedCompany(t.gateway);
  canonicalKey = (await acme.issueKey()).key;
  const { version } = await acme.publishProfile("lead", NATIVE, [
    { name: "typical", payload: native(), expect: { body: lead() } },
  ]);
  mappedKey = (await acme.issueKey({ leadProfileVersionId: version.id })).key;
});
afterAll(() => t.close());

const post = (key: string, body: unknown) => postJson(`${t.url}/api/inbound/leads`, body, { "x-api-key": key });
const stored = async (submissionId: string) => (await submissionRow(t.gateway, submissionId))?.canonicalBody;

describe("§2.7 lead text at the gateway's intake", () => {
  it.each([
    ["a right-to-left override in the name", { fullName: "Ada \u202eecalevol" }, "fullName"],
    ["a bidirectional isolate in the address", { address: "12 Analytical Way\u2066, Springfield" }, "address"],
    ["a bell in the address", { address: "12 Analytical\u0007 Way" }, "address"],
    ["a NUL in the name", { fullName: "Ada\u0000Lovelace" }, "fullName"],
    ["an escape (C1 CSI) in the name", { fullName: "Ada\u009bLovelace" }, "fullName"],
  ])("refuses %s with a 400 naming the field", async (_case, overrides, field) => {
    for (const [key, body] of [
      [canonicalKey, lead(overrides)],
      [mappedKey, native(overrides)],
    ] as const) {
      const res = await post(key, body);
      expect(res.status).toBe(400);
      expect(await json(res)).toEqual({
        error: `${field}: must not contain control characters or bidirectional overrides`,
        field,
      });
    }
  });

  it("turns tab and line breaks into spaces, one each, and keeps direction marks", async () => {
    const overrides = { fullName: "Ada\tLovelace\u200f", address: "12 Analytical Way\r\nSpringfield\u2028IL" };
    for (const [key, body] of [
      [canonicalKey, lead(overrides)],
      [mappedKey, native(overrides)],
    ] as const) {
      const res = await post(key, body);
      expect(res.status).toBe(202);
      const { submissionId } = await json(res);
      expect(await stored(String(submissionId))).toMatchObject({
        fullName: "Ada Lovelace\u200f",
        address: "12 Analytical Way  Springfield IL",
      });
    }
  });

  it("accepts a clean lead unchanged (the positive control)", async () => {
    const res = await post(canonicalKey, lead());
    expect(res.status).toBe(202);
    expect(await stored(String((await json(res)).submissionId))).toEqual(lead());
  });

  it("leaves the shared §2.7 schema, and so the sandbox, as the spec has it", () => {
    expect(leadSchema.safeParse(lead({ fullName: "Ada \u202eecalevol", address: "12 Way\n\u0007" })).success).toBe(
      true,
    );
  });
});
