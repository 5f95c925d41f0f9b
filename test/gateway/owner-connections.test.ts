import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestHookToken } from "../../src/gateway/connections/hook-token.js";
import { createUpstreamCredential } from "../../src/gateway/credentials/upstream-credentials.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

// The owner's side of hook connections (docs/connections.md, "Connecting a vendor"; D-306, D-307): happy paths,
// refusals, and what a viewer and another company get.

const PRESETS = new URL("../../presets", import.meta.url).pathname;
const ANGI_KEY = "angi-owner-api-key-000000001";
/** Angi's documented lead without an appointment (presets/angi/samples/01-lead-without-appointment.json). */
const ANGI_LEAD = {
  name: "Fancy Nancy",
  address: "123 Main St",
  city: "USAville",
  stateProvince: "PA",
  postalCode: "12345",
  primaryPhone: "5558675309",
  email: "fancy.nancy@edify.com",
  leadOid: 135911130,
};

let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let rival: Awaited<ReturnType<typeof seedCompany>>;
const tokens = { admin: "", viewer: "", rival: "" };

async function bearer(email: string, base = t.url): Promise<string> {
  const signIn = await postJson(`${base}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = await json(signIn);
  const res = await postJson(`${base}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": String(csrfToken) });
  return String((await json(res)).token);
}

async function api(path: string, token: string, init: { method?: string; body?: unknown; base?: string } = {}) {
  const res = await fetch(`${init.base ?? t.url}/owner/v1${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

const connect = (body: Record<string, unknown>, token = tokens.admin) =>
  api("/connections", token, { method: "POST", body: { credentialId: acme.credential.id, ...body } });

const postLead = (url: string, key = ANGI_KEY) =>
  postJson(url, { ...ANGI_LEAD, leadOid: Math.floor(Math.random() * 1e9) }, { "x-api-key": key });

beforeAll(async () => {
  t = await startTestGateway({}, { presetsDir: PRESETS });
  acme = await seedCompany(t.gateway, "Acme Hooks");
  rival = await seedCompany(t.gateway, "Rival Hooks");
  await createOwner({
    ctx: t.gateway.ctx,
    input: {
      companyId: acme.company.id,
      email: "viewer@hooks.test",
      name: "V",
      role: "viewer",
      password: OWNER_PASSWORD,
    },
  });
  tokens.admin = await bearer(acme.email);
  tokens.viewer = await bearer("viewer@hooks.test");
  tokens.rival = await bearer(rival.email);
}, 30_000);
afterAll(() => t.close());

describe("the catalogue of presets", () => {
  it("lists each vendor with its secrets (what each is, where to find it), its fetch and its setup notes", async () => {
    const { status, body } = await api("/connection-presets", tokens.viewer);
    expect(status).toBe(200);
    const presets = body.presets as { id: string; secrets: unknown[]; fetch: boolean; register: unknown }[];
    expect(presets.map((p) => p.id)).toContain("angi");
    const angi = presets.find((p) => p.id === "angi");
    expect(angi).toMatchObject({
      kinds: ["lead", "appointment"],
      bodyType: "json",
      fetch: false,
      secrets: [{ name: "apiKey", description: expect.stringMatching(/x-api-key/), where: expect.any(String) }],
      register: { how: "dashboard", docs: expect.stringMatching(/crmintegrations@angi\.com/) },
      docs: expect.arrayContaining(["https://www.homeadvisor.com/r/feed"]),
    });
    expect(presets.find((p) => p.id === "meta-lead-ads")?.fetch).toBe(true);
  });
});

describe("connecting a vendor", () => {
  let id = "";
  let hookUrl = "";

  it("answers 201 with the hook URL once; the list and the connection show everything else", async () => {
    const made = await connect({ preset: "angi", name: "Angi", secrets: { apiKey: ANGI_KEY } });
    expect(made.status).toBe(201);
    id = String(made.body.id);
    hookUrl = String(made.body.hookUrl);
    expect(hookUrl).toMatch(new RegExp(`^${t.url}/hooks/hk_[A-Za-z0-9_-]{43}$`));
    expect(made.body).toMatchObject({ preset: "angi", profileKind: "appointment", status: "active", proofFailures: 0 });
    const listed = await api("/connections", tokens.viewer);
    expect(listed.body.connections).toEqual([expect.objectContaining({ id, name: "Angi", status: "active" })]);
    const one = await api(`/connections/${id}`, tokens.viewer);
    expect(one.status).toBe(200);
    expect(one.body).toEqual((listed.body.connections as unknown[])[0]);
    expect((await postLead(hookUrl)).status).toBe(200);
  });

  it("never answers the token (but in the hook URL of making and rotating), its digest, or a secret", async () => {
    const token = hookUrl.split("/hooks/")[1] ?? "";
    const answers = [
      (await api("/connections", tokens.admin)).text,
      (await api(`/connections/${id}`, tokens.admin)).text,
      (await api(`/submissions?connectionId=${id}`, tokens.admin)).text,
    ].join("\n");
    // Positive control: these answers are about this connection.
    expect(answers).toContain(id);
    for (const secret of [token, digestHookToken(token), ANGI_KEY]) expect(answers).not.toContain(secret);
  });

  it("rotates the hook URL: the new one is shown once, the old one works for the overlap, then not at all", async () => {
    const rotated = await api(`/connections/${id}/rotate-hook-url`, tokens.admin, {
      method: "POST",
      body: { overlapHours: 2 },
    });
    expect(rotated.status).toBe(200);
    const next = String(rotated.body.hookUrl);
    expect(next).not.toBe(hookUrl);
    expect(Date.parse(String(rotated.body.previousHookUrlValidUntil)) - Date.now()).toBeGreaterThan(3_600_000);
    expect((await postLead(hookUrl)).status).toBe(200);
    expect((await postLead(next)).status).toBe(200);
    const again = await api(`/connections/${id}/rotate-hook-url`, tokens.admin, {
      method: "POST",
      body: { overlapHours: 0 },
    });
    expect(again.body.previousHookUrlValidUntil).toBeNull();
    expect((await postLead(next)).status).toBe(404);
    hookUrl = String(again.body.hookUrl);
    expect((await postLead(hookUrl)).status).toBe(200);
  });

  it("revokes a connection: its hook URL is refused, and it can no longer be rotated", async () => {
    const revoked = await api(`/connections/${id}/revoke`, tokens.admin, { method: "POST" });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id, status: "revoked", revokedAt: expect.any(String) });
    expect(revoked.body).not.toHaveProperty("hookUrl");
    expect((await postLead(hookUrl)).status).toBe(404);
    const rotate = await api(`/connections/${id}/rotate-hook-url`, tokens.admin, { method: "POST", body: {} });
    expect(rotate.status).toBe(409);
    expect(rotate.body.code).toBe("conflict");
    // What it submitted stays, in the log filtered by the connection.
    const log = await api(`/submissions?connectionId=${id}`, tokens.admin);
    expect((log.body.submissions as unknown[]).length).toBe(4);
  });

  it("shows a held payload in the log filtered by connection and status, with the reason", async () => {
    const made = await connect({ preset: "angi", name: "Angi held", secrets: { apiKey: ANGI_KEY } });
    const { email: _left, ...noEmail } = ANGI_LEAD;
    expect((await postJson(String(made.body.hookUrl), noEmail, { "x-api-key": ANGI_KEY })).status).toBe(200);
    expect((await postLead(String(made.body.hookUrl))).status).toBe(200);
    const held = await api(`/submissions?connectionId=${made.body.id}&status=held`, tokens.viewer);
    expect(held.body.submissions).toEqual([
      expect.objectContaining({
        connectionId: made.body.id,
        status: "held",
        heldReason: expect.stringMatching(/email/),
      }),
    ]);
    // Positive control: the connection's other payload is in its log, queued.
    const all = await api(`/submissions?connectionId=${made.body.id}`, tokens.viewer);
    expect((all.body.submissions as { status: string }[]).map((s) => s.status).sort()).toEqual(["held", "queued"]);
  });
});

describe("refusals", () => {
  it("refuses an unknown preset, a missing or unknown secret, each naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ preset: "no-such-vendor", name: "x", secrets: {} }, "preset"],
      [{ preset: "angi", name: "x", secrets: {} }, "secrets.apiKey"],
      [{ preset: "angi", name: "x", secrets: { apiKey: ANGI_KEY, appSecret: "s" } }, "secrets.appSecret"],
      // Without a preset, the declarations are the owner's to give.
      [{ name: "x", secrets: {} }, "settings"],
    ];
    for (const [body, field] of cases) {
      const res = await connect(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: "bad_request", field });
    }
  });

  it("asks which credential when the company has several, and refuses another company's", async () => {
    await createUpstreamCredential({
      ctx: t.gateway.ctx,
      companyId: acme.company.id,
      input: { name: "second", value: `svc_test_second00.${"z".repeat(40)}` },
    });
    const without = await api("/connections", tokens.admin, {
      method: "POST",
      body: { preset: "angi", name: "Which", secrets: { apiKey: ANGI_KEY } },
    });
    expect(without.status).toBe(400);
    expect(without.body.field).toBe("credentialId");
    const theirs = await connect({
      preset: "angi",
      name: "Theirs",
      secrets: { apiKey: ANGI_KEY },
      credentialId: rival.credential.id,
    });
    expect(theirs.status).toBe(404);
  });

  it("refuses a second connection whose profile name is taken with 409", async () => {
    const first = await connect({ preset: "angi", name: "Twice", secrets: { apiKey: ANGI_KEY } });
    expect(first.status).toBe(201);
    const second = await connect({ preset: "angi", name: "Twice", secrets: { apiKey: ANGI_KEY } });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: "conflict", field: "name" });
  });

  it("refuses vendorApiBase outside sandbox mode with 400 naming the field, and takes it in sandbox mode", async () => {
    const sandbox = await connect({
      preset: "angi",
      name: "Sandbox API base",
      secrets: { apiKey: ANGI_KEY },
      vendorApiBase: "http://127.0.0.1:9/",
    });
    expect(sandbox.status).toBe(201);
    const live = await startTestGateway({ mode: "live" }, { presetsDir: PRESETS });
    try {
      const { ctx } = live.gateway;
      const company = await createCompany({ ctx, input: { name: "Live Hooks" } });
      const email = "admin@live-hooks.test";
      await createOwner({
        ctx,
        input: { companyId: company.id, email, name: "A", role: "admin", password: OWNER_PASSWORD },
      });
      const res = await api("/connections", await bearer(email, live.url), {
        method: "POST",
        base: live.url,
        body: { preset: "angi", name: "Live", secrets: { apiKey: ANGI_KEY }, vendorApiBase: "http://127.0.0.1:9/" },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "bad_request", field: "vendorApiBase" });
    } finally {
      await live.close();
    }
  });
});

describe("roles and tenants", () => {
  let id = "";

  beforeAll(async () => {
    id = String((await connect({ preset: "angi", name: "Guarded", secrets: { apiKey: ANGI_KEY } })).body.id);
  });

  it("refuses a viewer every change with 403, and lets it read (positive control)", async () => {
    expect((await api("/connections", tokens.viewer)).status).toBe(200);
    expect((await api(`/connections/${id}`, tokens.viewer)).status).toBe(200);
    const changes: [string, unknown?][] = [
      ["/connections", { preset: "angi", name: "Viewer's", secrets: { apiKey: ANGI_KEY } }],
      [`/connections/${id}/rotate-hook-url`, {}],
      [`/connections/${id}/revoke`],
    ];
    for (const [path, body] of changes) {
      const res = await api(path, tokens.viewer, { method: "POST", body });
      expect(res.status, path).toBe(403);
      expect(res.body.code).toBe("forbidden");
    }
    expect((await api(`/connections/${id}`, tokens.admin)).body.status).toBe("active");
  });

  it("answers another company 404 for the connection, and lists it none of Acme's", async () => {
    for (const [path, method] of [
      [`/connections/${id}`, "GET"],
      [`/connections/${id}/rotate-hook-url`, "POST"],
      [`/connections/${id}/revoke`, "POST"],
    ] as const) {
      const res = await api(path, tokens.rival, { method, ...(method === "POST" ? { body: {} } : {}) });
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    expect((await api("/connections", tokens.rival)).body.connections).toEqual([]);
    expect((await api(`/submissions?connectionId=${id}`, tokens.rival)).body.submissions).toEqual([]);
    // Positive control: Acme's admin still has it, active (the refusals changed nothing).
    expect((await api(`/connections/${id}`, tokens.admin)).body).toMatchObject({ id, status: "active" });
  });

  it("does not re-map another company's held payload", async () => {
    const made = await connect({ preset: "angi", name: "Held guarded", secrets: { apiKey: ANGI_KEY } });
    const { email: _left, ...noEmail } = ANGI_LEAD;
    await postJson(String(made.body.hookUrl), noEmail, { "x-api-key": ANGI_KEY });
    const held = await api(`/submissions?connectionId=${made.body.id}&status=held`, tokens.admin);
    const [row] = held.body.submissions as { submissionId: string }[];
    const body = { status: "held", submissionIds: [row?.submissionId] };
    const theirs = await api("/dead-letter/redrive", tokens.rival, { method: "POST", body });
    expect(theirs.body).toEqual({ redriven: 0, remapped: 0, created: 0, skipped: [] });
    // Positive control: Acme's own redrive finds it (still held: the preset's profile has not been fixed).
    const own = await api("/dead-letter/redrive", tokens.admin, { method: "POST", body });
    expect(own.body.skipped).toEqual([
      { submissionId: row?.submissionId, reason: expect.stringMatching(/^still held/) },
    ]);
  });
});
