import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { submissionRow } from "../helpers/store-reads.js";

const MARKETPLACE = `{
  "fullName": $join([contact.first, contact.last], " "),
  "email": contact.email,
  "phone": contact.phone,
  "address": property.street & ", " & property.city,
  "smsConsent": consent.sms = true
}`;

const nativeLead = (overrides: Record<string, unknown> = {}) => ({
  contact: { first: "Ada", last: "Lovelace", email: "ada@example.com", phone: "+1 (555) 010-2000", ...overrides },
  property: { street: "12 Analytical Way", city: "Springfield" },
  consent: { sms: true },
});

const canonical = {
  fullName: "Ada Lovelace",
  email: "ada@example.com",
  phone: "+1 (555) 010-2000",
  address: "12 Analytical Way, Springfield",
  smsConsent: true,
};

let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let other: Awaited<ReturnType<typeof seedCompany>>;
let mapped: { key: string; id: string };
let plain: { key: string; id: string };

beforeAll(async () => {
  t = await startTestGateway({ intakeLimit: { ratePerSecond: 1000, burst: 1000 } });
  acme = await seedCompany(t.gateway);
  other = await seedCompany(t.gateway);
  const { version } = await acme.publishProfile("lead", MARKETPLACE, [
    { name: "typical", payload: nativeLead(), expect: { body: canonical } },
  ]);
  mapped = await acme.issueKey({ leadProfileVersionId: version.id });
  plain = await acme.issueKey();
});
afterAll(() => t.close());

const leads = () => `${t.url}/api/inbound/leads`;

describe("§5 authentication at the gateway's intake", () => {
  it("rejects a missing, malformed or unknown key with 401", async () => {
    expect((await postJson(leads(), canonical)).status).toBe(401);
    expect((await postJson(leads(), canonical, { "x-api-key": "not-a-key" })).status).toBe(401);
    const unknown = `svc_test_${"a".repeat(16)}.${"b".repeat(43)}`;
    const res = await postJson(leads(), canonical, { "x-api-key": unknown });
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({ error: "missing, malformed or unknown API key" });
  });

  it("rejects a right key id with a wrong secret, and a live key in sandbox mode, with 401", async () => {
    const [id] = plain.key.split(".");
    expect((await postJson(leads(), canonical, { "x-api-key": `${id}.${"x".repeat(43)}` })).status).toBe(401);
    const live = plain.key.replace("svc_test_", "svc_live_");
    expect((await postJson(leads(), canonical, { "x-api-key": live })).status).toBe(401);
  });

  it("rejects a revoked key with 401", async () => {
    const key = await acme.issueKey();
    expect((await postJson(leads(), canonical, { "x-api-key": key.key })).status).toBe(202);
    const { revokeVendorKey } = await import("../../src/gateway/keys/vendor-keys.js");
    await revokeVendorKey({ ctx: t.gateway.ctx, companyId: acme.company.id, keyId: key.id });
    expect((await postJson(leads(), canonical, { "x-api-key": key.key })).status).toBe(401);
  });

  it("keeps the previous secret valid during a rotation overlap, and not after", async () => {
    const { rotateVendorKey } = await import("../../src/gateway/keys/vendor-keys.js");
    const key = await acme.issueKey();
    const rotated = await rotateVendorKey({
      ctx: t.gateway.ctx,
      companyId: acme.company.id,
      keyId: key.id,
      overlapSeconds: 60,
    });
    expect((await postJson(leads(), canonical, { "x-api-key": key.key })).status).toBe(202);
    expect((await postJson(leads(), canonical, { "x-api-key": rotated.key })).status).toBe(202);
    const again = await rotateVendorKey({
      ctx: t.gateway.ctx,
      companyId: acme.company.id,
      keyId: key.id,
      overlapSeconds: 0,
    });
    expect((await postJson(leads(), canonical, { "x-api-key": rotated.key })).status).toBe(401);
    expect((await postJson(leads(), canonical, { "x-api-key": again.key })).status).toBe(202);
  });

  it("answers 403 naming the scope when the key lacks it (§5.4)", async () => {
    const key = await acme.issueKey({ scopes: ["appointments:write"] });
    const res = await postJson(leads(), canonical, { "x-api-key": key.key });
    expect(res.status).toBe(403);
    expect((await json(res)).error).toContain("leads:write");
  });
});

describe("§8 request body rules at intake", () => {
  it("answers 413 over 1 MB, 415 for non-JSON and 400 for malformed JSON", async () => {
    const big = JSON.stringify({ ...canonical, fullName: "x".repeat(1_000_001) });
    expect((await postJson(leads(), big, { "x-api-key": plain.key })).status).toBe(413);
    const form = await fetch(leads(), {
      method: "POST",
      headers: { "x-api-key": plain.key, "content-type": "text/plain" },
      body: "hello",
    });
    expect(form.status).toBe(415);
    expect((await postJson(leads(), "{oops", { "x-api-key": plain.key })).status).toBe(400);
  });
});

describe("§2.7 leads: accept, map, validate", () => {
  it("accepts a canonical body with no profile: 202, submission id, Location", async () => {
    const res = await postJson(leads(), canonical, { "x-api-key": plain.key });
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toEqual({ submissionId: expect.stringMatching(/^sub_/), status: "queued" });
    expect(res.headers.get("location")).toBe(`/api/inbound/submissions/${body.submissionId}`);
  });

  it("names the canonical field of a §2.7 rule a key without profile breaks", async () => {
    const res = await postJson(leads(), { ...canonical, fullName: "x".repeat(121) }, { "x-api-key": plain.key });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ field: "fullName" });
  });

  it("maps a native payload with the key's profile and records the version", async () => {
    const res = await postJson(leads(), nativeLead(), { "x-api-key": mapped.key });
    expect(res.status).toBe(202);
    const { submissionId } = await json(res);
    const { getSubmissionDetail } = await import("../../src/gateway/submissions/list-submissions.js");
    const detail = await getSubmissionDetail({
      ctx: t.gateway.ctx,
      companyId: acme.company.id,
      submissionId: String(submissionId),
    });
    expect(detail.canonicalBody).toEqual(canonical);
    expect(detail.rawPayload).toEqual(nativeLead());
    expect(detail.profileVersionId).toMatch(/^pv_/);
  });

  it("names both the canonical field and the vendor's field when the mapped body breaks a rule", async () => {
    const res = await postJson(leads(), nativeLead({ email: "not-an-email" }), { "x-api-key": mapped.key });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.field).toBe("email");
    expect(body.sourcePath).toBe("contact.email");
    expect(String(body.error)).toMatch(/^email: /);
  });

  it("lets the submitting key read its submission, and no other key", async () => {
    const res = await postJson(leads(), canonical, { "x-api-key": plain.key });
    const { submissionId } = await json(res);
    const mine = await fetch(`${t.url}/api/inbound/submissions/${submissionId}`, {
      headers: { "x-api-key": plain.key },
    });
    expect(mine.status).toBe(200);
    expect(await json(mine)).toMatchObject({ submissionId, status: "queued", kind: "lead", attempts: 0 });
    const sibling = await fetch(`${t.url}/api/inbound/submissions/${submissionId}`, {
      headers: { "x-api-key": mapped.key },
    });
    expect(sibling.status).toBe(404);
    const foreign = await other.issueKey();
    const cross = await fetch(`${t.url}/api/inbound/submissions/${submissionId}`, {
      headers: { "x-api-key": foreign.key },
    });
    expect(cross.status).toBe(404);
    expect(await json(cross)).toEqual({ error: "not found" });
  });
});

describe("§8 idempotency at intake, scoped to the vendor key", () => {
  it("returns the same submission for the same Idempotency-Key and payload, even with keys reordered", async () => {
    const headers = { "x-api-key": plain.key, "idempotency-key": "lead-0001" };
    const first = await json(await postJson(leads(), canonical, headers));
    const reordered = Object.fromEntries(Object.entries(canonical).reverse());
    const replay = await postJson(leads(), reordered, headers);
    expect(replay.status).toBe(200);
    expect(await json(replay)).toMatchObject({ submissionId: first.submissionId, status: "queued" });
  });

  it("answers 409 at once when the key is reused with a different payload", async () => {
    const headers = { "x-api-key": plain.key, "idempotency-key": "lead-0002" };
    expect((await postJson(leads(), canonical, headers)).status).toBe(202);
    const res = await postJson(leads(), { ...canonical, fullName: "Someone Else" }, headers);
    expect(res.status).toBe(409);
  });

  it("digests the payload only when a key is given: without one nothing compares it", async () => {
    const keyed = await json(
      await postJson(leads(), canonical, { "x-api-key": plain.key, "idempotency-key": "lead-0003" }),
    );
    const keyless = await json(await postJson(leads(), canonical, { "x-api-key": plain.key }));
    const digestOf = async (id: unknown) => {
      const row = await submissionRow(t.gateway, String(id));
      if (!row) throw new Error(`submission ${String(id)} not committed`);
      return row.payloadDigest;
    };
    expect(await digestOf(keyed.submissionId)).toMatch(/^[0-9a-f]{64}$/);
    expect(await digestOf(keyless.submissionId)).toBeNull();
  });

  it("rejects an Idempotency-Key outside §8's alphabet or over 128 characters", async () => {
    const bad = await postJson(leads(), canonical, { "x-api-key": plain.key, "idempotency-key": "has space" });
    expect(bad.status).toBe(400);
    const long = await postJson(leads(), canonical, { "x-api-key": plain.key, "idempotency-key": "a".repeat(129) });
    expect(long.status).toBe(400);
  });

  it("keeps two vendors' identical appointment idempotency keys apart, with distinct upstream keys", async () => {
    const booking = {
      leadId: "lead_abc",
      startsAt: "2026-12-01T15:00:00Z",
      endsAt: "2026-12-01T16:00:00Z",
      idempotencyKey: "abc12345",
    };
    const a = await json(await postJson(`${t.url}/api/inbound/appointments`, booking, { "x-api-key": plain.key }));
    const b = await json(await postJson(`${t.url}/api/inbound/appointments`, booking, { "x-api-key": mapped.key }));
    expect(a.submissionId).not.toBe(b.submissionId);
    const { getSubmissionDetail } = await import("../../src/gateway/submissions/list-submissions.js");
    const ctx = t.gateway.ctx;
    const da = await getSubmissionDetail({ ctx, companyId: acme.company.id, submissionId: String(a.submissionId) });
    const db = await getSubmissionDetail({ ctx, companyId: acme.company.id, submissionId: String(b.submissionId) });
    expect(da.upstreamIdempotencyKey).not.toBe(db.upstreamIdempotencyKey);
    for (const key of [da.upstreamIdempotencyKey, db.upstreamIdempotencyKey]) {
      expect(key?.length).toBeGreaterThanOrEqual(8);
      expect(key?.length).toBeLessThanOrEqual(160);
    }
  });
});

describe("§2.8 appointments at intake", () => {
  const appointments = () => `${t.url}/api/inbound/appointments`;

  it("accepts a lead submission id of the same key as leadId, and 404s another key's", async () => {
    const lead = await json(await postJson(leads(), canonical, { "x-api-key": plain.key }));
    const booking = {
      leadId: lead.submissionId,
      startsAt: "2026-12-01T15:00:00Z",
      endsAt: "2026-12-01T16:00:00Z",
      idempotencyKey: "chain-0001",
    };
    expect((await postJson(appointments(), booking, { "x-api-key": plain.key })).status).toBe(202);
    const foreign = await postJson(
      appointments(),
      { ...booking, idempotencyKey: "chain-0002" },
      { "x-api-key": mapped.key },
    );
    expect(foreign.status).toBe(404);
  });

  it("rejects endsAt before startsAt naming endsAt", async () => {
    const res = await postJson(
      appointments(),
      {
        leadId: "lead_x",
        startsAt: "2026-12-01T16:00:00Z",
        endsAt: "2026-12-01T15:00:00Z",
        idempotencyKey: "bad-times-1",
      },
      { "x-api-key": plain.key },
    );
    expect(res.status).toBe(400);
    expect((await json(res)).field).toBe("endsAt");
  });
});

describe("intake limit per vendor key", () => {
  it("answers 429 with retry-after once a key's bucket is empty", async () => {
    const tight = await startTestGateway({ intakeLimit: { ratePerSecond: 1, burst: 2 } });
    try {
      const company = await seedCompany(tight.gateway);
      const key = await company.issueKey();
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await postJson(`${tight.url}/api/inbound/leads`, canonical, { "x-api-key": key.key })).status);
      expect(statuses).toEqual([202, 202, 429]);
      const res = await postJson(`${tight.url}/api/inbound/leads`, canonical, { "x-api-key": key.key });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    } finally {
      await tight.close();
    }
  });
});

describe("§5.9 keys never reach the logs", () => {
  it("logs only the first 14 characters of a vendor key", async () => {
    await postJson(leads(), canonical, { "x-api-key": plain.key });
    const text = t.logText();
    const [, secret] = plain.key.split(".");
    expect(text).not.toContain(plain.key);
    expect(text).not.toContain(String(secret));
    expect(text).toContain(plain.key.slice(0, 14));
  });
});

describe("§4.2 one intake, whichever server answers it", () => {
  // Under Node the intake paths are Node routes; the Hono routes answer app.request() and runtimes without Node's
  // server. Both run the same pipeline, so a vendor sees the same answer from either.
  const cases: [string, Record<string, string>, unknown][] = [
    ["mapped lead", {}, nativeLead()],
    ["missing key", { "x-api-key": "" }, canonical],
    ["not JSON", { "content-type": "text/plain" }, canonical],
    ["validation error with the vendor's field", {}, nativeLead({ email: "not-an-email" })],
    ["malformed idempotency key", { "idempotency-key": "no spaces allowed" }, nativeLead()],
  ];

  it.each(cases)("%s", async (_name, headers, body) => {
    const init = () => ({
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": mapped.key, ...headers },
      body: JSON.stringify(body),
    });
    const viaNode = await fetch(leads(), init());
    const viaHono = await t.gateway.app.request("/api/inbound/leads", init());
    expect(viaHono.status).toBe(viaNode.status);
    expect(viaHono.headers.get("content-type")).toBe(viaNode.headers.get("content-type"));
    const comparable = (value: Record<string, unknown>) => ({ ...value, submissionId: typeof value.submissionId });
    expect(comparable(await json(viaHono))).toEqual(comparable(await json(viaNode)));
    for (const name of ["location", "x-submission-id", "x-request-id"]) {
      expect(viaHono.headers.has(name), name).toBe(viaNode.headers.has(name));
    }
  });
});
