import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { seedSubmissions } from "../helpers/seed-submissions.js";

let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let rival: Awaited<ReturnType<typeof seedCompany>>;
let acmeKey: string;
let rivalKey: string;
let acmeToken: string;
let rivalToken: string;

async function bearer(email: string): Promise<string> {
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = await json(signIn);
  const res = await postJson(`${t.url}/owner/v1/tokens`, { name: "ci" }, { cookie, "x-csrf-token": String(csrfToken) });
  return String((await json(res)).token);
}

const get = async (path: string, token: string) => {
  const res = await fetch(`${t.url}/owner/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await json(res) };
};

beforeAll(async () => {
  t = await startTestGateway();
  acme = await seedCompany(t.gateway, "Acme");
  rival = await seedCompany(t.gateway, "Rival");
  acmeKey = (await acme.issueKey()).id;
  rivalKey = (await rival.issueKey()).id;
  acmeToken = await bearer(acme.email);
  rivalToken = await bearer(rival.email);
  const now = Date.now();
  const base = { companyId: acme.company.id, vendorKeyId: acmeKey, credentialId: acme.credential.id };
  await seedSubmissions(t.gateway, [
    { ...base, at: now - 10_000, status: "forwarded", latencyMs: 100, attempts: 1, payload: { who: "first" } },
    { ...base, at: now - 9_000, status: "forwarded", latencyMs: 300, attempts: 2, payload: { who: "second" } },
    { ...base, at: now - 8_000, status: "failed", attempts: 1 },
    { ...base, at: now - 2 * 86_400_000, status: "forwarded" },
  ]);
  await seedSubmissions(t.gateway, [
    { companyId: rival.company.id, vendorKeyId: rivalKey, credentialId: rival.credential.id, at: now, attempts: 5 },
  ]);
});
afterAll(() => t.close());

describe("per-key counts for the console's keys page", () => {
  it("counts a key's submissions of the last 24 hours by outcome", async () => {
    const { status, body } = await get("/insights/key-counts", acmeToken);
    expect(status).toBe(200);
    expect(body.keys).toEqual([{ keyId: acmeKey, accepted: 3, forwarded: 2, failed: 1 }]);
  });

  it("never counts another company's submissions, and another company's key is a 404", async () => {
    expect((await get("/insights/key-counts", rivalToken)).body.keys).toEqual([
      { keyId: rivalKey, accepted: 1, forwarded: 1, failed: 0 },
    ]);
    expect((await get(`/insights/key-counts?keyId=${acmeKey}`, rivalToken)).status).toBe(404);
  });
});

describe("time series for the overview", () => {
  it("buckets accepted, forwarded and failed, with the forward latency", async () => {
    const { status, body } = await get("/insights/series?hours=1&bucketMinutes=60", acmeToken);
    expect(status).toBe(200);
    const buckets = body.buckets as { accepted: number; forwarded: number; failed: number; latencyP95Ms: number }[];
    const total = (f: "accepted" | "forwarded" | "failed") => buckets.reduce((sum, b) => sum + b[f], 0);
    expect([total("accepted"), total("forwarded"), total("failed")]).toEqual([3, 2, 1]);
    expect(Math.max(...buckets.map((b) => b.latencyP95Ms ?? 0))).toBe(300);
  });

  it("shows a company none of another's traffic", async () => {
    const { body } = await get("/insights/series?hours=1&bucketMinutes=60", rivalToken);
    const buckets = body.buckets as { accepted: number }[];
    expect(buckets.reduce((sum, b) => sum + b.accepted, 0)).toBe(1);
  });
});

describe("limiter headroom (§8 levels)", () => {
  it("counts the sends of the current window per credential and company, and the egress total", async () => {
    const { body } = await get("/insights/headroom", acmeToken);
    expect(body.credentials).toEqual([
      { credentialId: acme.credential.id, name: "general", used: 4, limit: 60, windowMs: 60_000 },
    ]);
    expect(body.company).toEqual({ used: 4, limit: 300, windowMs: 60_000 });
    expect(body.egress).toEqual({ used: 9, limit: 600, windowMs: 60_000 });
  });

  it("shows another company only its own credentials", async () => {
    const { body } = await get("/insights/headroom", rivalToken);
    expect(body.credentials).toEqual([expect.objectContaining({ credentialId: rival.credential.id, used: 5 })]);
    expect(body.company).toMatchObject({ used: 5 });
  });
});

describe("a key's recent payloads (profile editor)", () => {
  it("lists the latest raw payloads newest first", async () => {
    const { status, body } = await get(`/keys/${acmeKey}/payloads?limit=2`, acmeToken);
    expect(status).toBe(200);
    const payloads = body.payloads as { payload: unknown }[];
    expect(payloads.map((p) => p.payload)).toEqual([{ n: 2 }, { who: "second" }]);
  });

  it("answers 404 for another company's key", async () => {
    expect((await get(`/keys/${acmeKey}/payloads`, rivalToken)).status).toBe(404);
  });
});

describe("golden samples of an unsaved draft (the editor's live pass/fail)", () => {
  const sample = { name: "s", payload: { n: "Ada", e: "ada@example.com", p: "5550102000", a: "1 Main St" } };
  const expression = '{ "fullName": n, "email": e, "phone": p, "address": a }';
  const body = { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };

  it("judges each sample by the rule publishing applies, without saving a version", async () => {
    const { profile } = await acme.publishProfile("lead", expression, [{ ...sample, expect: { body } }]);
    const post = (path: string, token: string, payload: unknown) =>
      fetch(`${t.url}/owner/v1${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
    const wrong = {
      expression: '{ "fullName": "x", "email": e, "phone": p, "address": a }',
      samples: [{ ...sample, expect: { body } }],
    };
    const report = await json(await post(`/profiles/${profile.id}/test`, acmeToken, wrong));
    expect(report).toMatchObject({ passed: false, total: 1, failed: 1 });
    const right = await json(await post(`/profiles/${profile.id}/test`, acmeToken, { ...wrong, expression }));
    expect(right).toMatchObject({ passed: true, failed: 0 });
    const versions = await get(`/profiles/${profile.id}/versions`, acmeToken);
    expect((versions.body.versions as unknown[]).length).toBe(1);
    expect((await post(`/profiles/${profile.id}/test`, rivalToken, wrong)).status).toBe(404);
  });
});

describe("console session support", () => {
  it("gives a signed-in browser its CSRF token again after a reload", async () => {
    const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: OWNER_PASSWORD });
    const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
    const { csrfToken } = await json(signIn);
    const current = await json(await fetch(`${t.url}/owner/v1/sessions/current`, { headers: { cookie } }));
    expect(current.csrfToken).toBe(csrfToken);
    expect(current.owner).toMatchObject({ email: acme.email, role: "admin", companyId: acme.company.id });
  });

  it("marks the session cookie Secure in live mode (served behind https) and not in sandbox mode", async () => {
    const plain = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: OWNER_PASSWORD });
    expect(String(plain.headers.get("set-cookie"))).not.toMatch(/Secure/);
    const live = await startTestGateway({ mode: "live" });
    try {
      const { ctx } = live.gateway;
      const company = await createCompany({ ctx, input: { name: "Live Co" } });
      const email = "owner@live.test";
      await createOwner({
        ctx,
        input: { companyId: company.id, email, name: "O", role: "admin", password: OWNER_PASSWORD },
      });
      const res = await postJson(`${live.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
      expect(res.status).toBe(200);
      expect(String(res.headers.get("set-cookie"))).toMatch(/HttpOnly.*Secure|Secure.*HttpOnly/);
    } finally {
      await live.close();
    }
  });

  it("rate-limits sign-in attempts per account", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await postJson(`${t.url}/owner/v1/sessions`, { email: rival.email, password: "not the password" });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 8).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const blocked = await postJson(`${t.url}/owner/v1/sessions`, { email: rival.email, password: OWNER_PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("authentication of the console's routes", () => {
  it("answers 401 without a session or token", async () => {
    for (const path of [
      "/insights/key-counts",
      "/insights/series",
      "/insights/headroom",
      `/keys/${acmeKey}/payloads`,
    ]) {
      expect((await fetch(`${t.url}/owner/v1${path}`)).status).toBe(401);
    }
  });
});

describe("OpenAPI document", () => {
  it("lists the insight routes", async () => {
    const doc = await json(await fetch(`${t.url}/openapi.json`));
    const paths = Object.keys(doc.paths as object);
    for (const path of [
      "/owner/v1/insights/key-counts",
      "/owner/v1/insights/series",
      "/owner/v1/insights/headroom",
      "/owner/v1/keys/{keyId}/payloads",
      "/owner/v1/sessions/current",
    ]) {
      expect(paths).toContain(path);
    }
  });
});
