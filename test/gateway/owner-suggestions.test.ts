import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suggestion as suggestionSchema } from "../../src/gateway/owner/routes/suggestions.schemas.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { rawRequest } from "../helpers/raw-http.js";

/**
 * POST /owner/v1/profile-suggestions (docs/owner-api.md; docs/profiles.md, "Suggested profiles"): a viewer's tool
 * that changes nothing, bounded as the owner's other tooling is (docs/decisions.md, "Bounded input", D-314).
 */
let t: TestGateway;
let viewer: string;
let admin: string;

async function tokenOf(gw: TestGateway, companyId: string, role: "admin" | "viewer"): Promise<string> {
  const email = `${role}-${companyId}-${Math.random().toString(36).slice(2)}@example.test`;
  await createOwner({ ctx: gw.gateway.ctx, input: { companyId, email, name: role, role, password: OWNER_PASSWORD } });
  const signIn = await postJson(`${gw.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(signIn)).csrfToken);
  const res = await postJson(`${gw.url}/owner/v1/tokens`, { name: role }, { cookie, "x-csrf-token": csrf });
  return String((await json(res)).token);
}

const suggest = (gw: TestGateway, token: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${gw.url}/owner/v1/profile-suggestions`, body, {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...headers,
  });

const leads = [
  { first_name: "Avery", last_name: "Castillo", email_address: "avery@example.com", phone_number: "(512) 555-0142" },
  { first_name: "Jordan", last_name: "Pike", email_address: "jpike@example.org", phone_number: "512.555.0187" },
].map((lead, n) => ({
  ...lead,
  street_address: ["4102 Duval St", "77 Ranch Rd"][n],
  city: "Austin",
  state: "TX",
  zip_code: "78751",
}));

beforeAll(async () => {
  t = await startTestGateway();
  const acme = await seedCompany(t.gateway);
  viewer = await tokenOf(t, acme.company.id, "viewer");
  admin = await tokenOf(t, acme.company.id, "admin");
});
afterAll(() => t.close());

describe("profile suggestions: happy paths", () => {
  it("answers a viewer with the expression, each field's source, confidence and reason, unused paths and missing fields", async () => {
    const res = await suggest(t, viewer, { kind: "lead", payloads: leads });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(suggestionSchema.safeParse(body).success).toBe(true);
    expect(body.fields).toContainEqual({
      field: "email",
      sourcePath: "email_address",
      confidence: "certain",
      reason: "name `email_address` and every value is an e-mail address.",
    });
    expect(body.missing).toEqual(["smsConsent"]);
    expect(body.unmapped).toEqual([]);
    // The suggestion is a profile the gateway runs: the preview maps a payload with it.
    const preview = await postJson(
      `${t.url}/owner/v1/profiles/preview`,
      { kind: "lead", expression: body.expression, payload: leads[1] },
      { authorization: `Bearer ${viewer}` },
    );
    expect(await json(preview)).toMatchObject({
      ok: true,
      body: {
        fullName: "Jordan Pike",
        email: "jpike@example.org",
        phone: "+15125550187",
        address: "77 Ranch Rd, Austin, TX 78751",
      },
    });
  });

  it("suggests a booking as a lead record and an appointment record, which the preview validates", async () => {
    const bookings = leads.map((lead, n) => ({
      booking: { id: `bk_${n}`, start: `2026-10-0${n + 5}T08:00:00-05:00`, end: `2026-10-0${n + 5}T09:00:00-05:00` },
      customer: lead,
    }));
    const res = await suggest(t, admin, { kind: "appointment", payloads: bookings });
    expect(res.status).toBe(200);
    const { expression } = await json(res);
    const preview = await postJson(
      `${t.url}/owner/v1/profiles/preview`,
      { kind: "appointment", expression, payload: bookings[0] },
      { authorization: `Bearer ${admin}` },
    );
    const outcome = await json(preview);
    expect(outcome).toMatchObject({ ok: true });
    expect((outcome.records as { kind: string; id: string }[]).map((r) => [r.kind, r.id])).toEqual([
      ["lead", "bk_0"],
      ["appointment", "bk_0"],
    ]);
  });
});

describe("profile suggestions: errors", () => {
  it.each([
    [{ kind: "lead", payloads: [] }, "payloads"],
    [{ kind: "lead", payloads: Array.from({ length: 21 }, () => ({})) }, "payloads"],
    [{ kind: "outbound", payloads: [{}] }, "kind"],
    [{ payloads: [{}] }, "kind"],
  ])("answers 400 bad_request naming the field for %j", async (body, field) => {
    const res = await suggest(t, viewer, body);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: "bad_request", field });
  });

  it("answers 401 without a token, 415 to a body that is not JSON", async () => {
    const anonymous = await suggest(t, undefined, { kind: "lead", payloads: leads });
    expect(anonymous.status).toBe(401);
    expect(await json(anonymous)).toMatchObject({ code: "unauthorized" });
    const text = await suggest(t, viewer, JSON.stringify({ kind: "lead", payloads: leads }), {
      "content-type": "text/plain",
    });
    expect(text.status).toBe(415);
  });

  it("answers 429 with retry-after past the company's tooling quota: a payload is one evaluation", async () => {
    const quota = await startTestGateway({ toolingQuota: { concurrent: 4, evaluationsPerSecond: 0.01, burst: 3 } });
    try {
      const company = await seedCompany(quota.gateway);
      const token = await tokenOf(quota, company.company.id, "viewer");
      expect((await suggest(quota, token, { kind: "lead", payloads: leads })).status).toBe(200);
      const spent = await suggest(quota, token, { kind: "lead", payloads: leads });
      expect(spent.status).toBe(429);
      expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(1);
      expect(await json(spent)).toMatchObject({ code: "rate_limited" });
    } finally {
      await quota.close();
    }
  });

  it("answers 503 with retry-after when the suggester cannot take the request", async () => {
    const closing = await startTestGateway();
    try {
      const company = await seedCompany(closing.gateway);
      const token = await tokenOf(closing, company.company.id, "viewer");
      await closing.gateway.ctx.suggester.close();
      const res = await suggest(closing, token, { kind: "lead", payloads: leads });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await json(res)).toMatchObject({ code: "unavailable" });
    } finally {
      await closing.close();
    }
  });

  it("answers 422 when the payloads take longer than the time limit to read", async () => {
    const strict = await startTestGateway({}, { suggest: { timeoutMs: 1 } });
    try {
      const company = await seedCompany(strict.gateway);
      const token = await tokenOf(strict, company.company.id, "viewer");
      const wide: Record<string, string> = {};
      for (let i = 0; i < 10_000; i++) wide[`field_${i}`] = `value ${i}`;
      const res = await suggest(strict, token, { kind: "lead", payloads: [wide] });
      expect(res.status).toBe(422);
      expect(await json(res)).toMatchObject({
        code: "unprocessable",
        error: expect.stringMatching(/longer than 1 ms/),
      });
    } finally {
      await strict.close();
    }
  });
});

describe("profile suggestions: body limits (docs/decisions.md, Bounded input)", () => {
  it("takes a body of 20 payloads just under 2 MB, and refuses one byte past it with 413", async () => {
    const filler = "x".repeat(99_000);
    const payloads = Array.from({ length: 20 }, (_, n) => ({ ...leads[n % 2], notes: filler }));
    const body = JSON.stringify({ kind: "lead", payloads });
    expect(body.length).toBeGreaterThan(1_950_000);
    expect(body.length).toBeLessThan(2_000_000);
    const taken = await suggest(t, viewer, body);
    expect(taken.status).toBe(200);
    expect((await json(taken)).missing).toEqual(["smsConsent"]);
    const refused = await rawRequest(`${t.url}/owner/v1/profile-suggestions`, {
      headers: { authorization: `Bearer ${viewer}`, "content-type": "application/json" },
      declaredLength: 2_000_001,
      chunks: ["{"],
    });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toMatchObject({ code: "payload_too_large" });
  });

  it("refuses payloads nested deeper than intake takes with 400", async () => {
    let deep: unknown = "x";
    for (let i = 0; i < 70; i++) deep = [deep];
    const res = await suggest(t, viewer, `{"kind":"lead","payloads":[${JSON.stringify(deep)}]}`);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: "bad_request", maxDepth: 68 });
  });
});
