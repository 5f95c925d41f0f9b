import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPTURE_KEEP } from "../../../src/gateway/captures/capture-payload.js";
import { erasePerson, purgeExpiredPayloads } from "../../../src/gateway/submissions/retention.js";
import { createOwner } from "../../../src/gateway/tenants/create-owner.js";
import {
  json,
  OWNER_PASSWORD,
  postJson,
  seedCompany,
  startTestGateway,
  type TestGateway,
} from "../../helpers/gateway.js";

// Capture mode (docs/connections.md, "Capture mode"; D-315..D-317): a key or a hook connection told to store what its
// vendor sends, never map or forward it, so the owner sees what arrives.

const PRESETS = new URL("../../../presets", import.meta.url).pathname;
const ANGI_KEY = "angi-capture-api-key-00000001";
const NATIVE = { contact: { first: "Ada", last: "Lovelace", mail: "ada@example.com" }, job: "roof" };

let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let rival: Awaited<ReturnType<typeof seedCompany>>;
const tokens = { admin: "", viewer: "", rival: "" };

async function bearer(email: string): Promise<string> {
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = await json(signIn);
  const res = await postJson(`${t.url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": String(csrfToken) });
  return String((await json(res)).token);
}

async function api(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${t.url}/owner/v1${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const submissionsOf = async (keyId: string) =>
  (await api(`/submissions?keyId=${keyId}`, tokens.admin)).body.submissions as unknown[];

beforeAll(async () => {
  t = await startTestGateway({}, { presetsDir: PRESETS });
  acme = await seedCompany(t.gateway, "Acme Capture");
  rival = await seedCompany(t.gateway, "Rival Capture");
  await createOwner({
    ctx: t.gateway.ctx,
    input: {
      companyId: acme.company.id,
      email: "viewer@capture.test",
      name: "V",
      role: "viewer",
      password: OWNER_PASSWORD,
    },
  });
  tokens.admin = await bearer(acme.email);
  tokens.viewer = await bearer("viewer@capture.test");
  tokens.rival = await bearer(rival.email);
}, 30_000);
afterAll(() => t.close());

describe("a vendor key in capture mode (D-315)", () => {
  it("stores what the vendor sends, answers 202 as an accept, never makes a submission; off again, it maps as before", async () => {
    const key = await acme.issueKey();
    // Positive control: without capture mode a key without a profile takes canonical bodies only (§2.7).
    expect((await postJson(`${t.url}/api/inbound/leads`, NATIVE, { "x-api-key": key.key })).status).toBe(400);

    const on = await api(`/keys/${key.id}/capture`, tokens.admin, { method: "PUT", body: { on: true } });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ vendorKeyId: key.id, connectionId: null, keep: CAPTURE_KEEP });
    expect(typeof on.body.captureSince).toBe("string");

    const res = await postJson(`${t.url}/api/inbound/leads`, NATIVE, { "x-api-key": key.key });
    expect(res.status).toBe(202);
    const answer = await json(res);
    expect(answer).toEqual({ submissionId: expect.stringMatching(/^cap_/), status: "captured" });
    expect(res.headers.get("location")).toBe(`/api/inbound/submissions/${answer.submissionId}`);
    // The vendor asks after it as after any submission.
    const status = await fetch(`${t.url}${res.headers.get("location")}`, { headers: { "x-api-key": key.key } });
    expect(await status.json()).toEqual({ submissionId: answer.submissionId, status: "captured" });

    // Authenticated as usual (§5.1): a wrong key is 401 and nothing is captured.
    const wrong = await postJson(`${t.url}/api/inbound/leads`, NATIVE, { "x-api-key": `${key.id}.wrong` });
    expect(wrong.status).toBe(401);

    const listed = await api(`/keys/${key.id}/captures`, tokens.viewer);
    expect(listed.status).toBe(200);
    expect(listed.body.captures).toEqual([
      {
        captureId: answer.submissionId,
        kind: "lead",
        connectionId: null,
        bytes: Buffer.byteLength(JSON.stringify(NATIVE)),
        createdAt: expect.any(String),
        payload: NATIVE,
      },
    ]);
    expect(await submissionsOf(key.id)).toEqual([]);

    await api(`/keys/${key.id}/capture`, tokens.admin, { method: "PUT", body: { on: false } });
    expect((await postJson(`${t.url}/api/inbound/leads`, NATIVE, { "x-api-key": key.key })).status).toBe(400);
    expect((await api(`/keys/${key.id}/captures`, tokens.admin)).body.captures).toHaveLength(1);
  });

  it(`keeps the newest ${CAPTURE_KEEP} per key (D-316), and the owner may drop them`, async () => {
    const key = await acme.issueKey();
    await api(`/keys/${key.id}/capture`, tokens.admin, { method: "PUT", body: { on: true } });
    for (let i = 0; i < CAPTURE_KEEP + 3; i++) {
      const res = await postJson(`${t.url}/api/inbound/leads`, { n: i }, { "x-api-key": key.key });
      expect(res.status).toBe(202);
    }
    const captures = (await api(`/keys/${key.id}/captures`, tokens.admin)).body.captures as {
      payload: { n: number };
    }[];
    expect(captures.map((c) => c.payload.n)).toEqual(
      Array.from({ length: CAPTURE_KEEP }, (_, i) => CAPTURE_KEEP + 2 - i),
    );
    expect((await api(`/keys/${key.id}/captures`, tokens.admin, { method: "DELETE" })).body).toEqual({
      cleared: CAPTURE_KEEP,
    });
    expect((await api(`/keys/${key.id}/captures`, tokens.admin)).body.captures).toEqual([]);
  });

  it("is the admin's to turn on (a viewer's 403) and another company's key is a 404", async () => {
    const key = await acme.issueKey();
    const put = (token: string) => api(`/keys/${key.id}/capture`, token, { method: "PUT", body: { on: true } });
    expect((await put(tokens.viewer)).status).toBe(403);
    expect((await put(tokens.rival)).status).toBe(404);
    expect((await api(`/keys/${key.id}/captures`, tokens.rival)).status).toBe(404);
    // Positive control: the admin may.
    expect((await put(tokens.admin)).status).toBe(200);
  });
});

describe("a hook connection in capture mode (D-315)", () => {
  it("checks the vendor's proof, stores the body as its JSON tree, answers as the preset says, forwards nothing", async () => {
    const made = await api("/connections", tokens.admin, {
      method: "POST",
      body: { preset: "angi", name: "Angi capture", secrets: { apiKey: ANGI_KEY }, credentialId: acme.credential.id },
    });
    expect(made.status).toBe(201);
    const connectionId = String(made.body.id);
    const hookUrl = String(made.body.hookUrl);
    const lead = { name: "Fancy Nancy", email: "fancy.nancy@edify.com", primaryPhone: "5558675309", leadOid: 42 };

    // Positive control: before capture mode, the payload becomes a submission.
    const first = await postJson(hookUrl, lead, { "x-api-key": ANGI_KEY });
    expect(first.status).toBe(200);
    const firstAnswer = await first.text();
    await expect
      .poll(async () => (await api(`/submissions?connectionId=${connectionId}`, tokens.admin)).body.submissions)
      .toHaveLength(1);

    const on = await api(`/connections/${connectionId}/capture`, tokens.admin, { method: "PUT", body: { on: true } });
    expect(on.body).toMatchObject({ connectionId, vendorKeyId: made.body.vendorKeyId });

    // The vendor's own proof still holds: without it, 401 and nothing captured.
    expect((await postJson(hookUrl, lead, { "x-api-key": "not-the-key" })).status).toBe(401);
    const captured = await postJson(hookUrl, { ...lead, leadOid: 43 }, { "x-api-key": ANGI_KEY });
    expect(captured.status).toBe(first.status);
    // The answer the preset declares, as for an accepted payload (it echoes the vendor's id).
    expect(await captured.text()).toBe(firstAnswer.replace("42", "43"));
    expect((await postJson(hookUrl, { ...lead, leadOid: 44 }, { "x-api-key": ANGI_KEY })).status).toBe(200);

    const listed = await api(`/connections/${connectionId}/captures`, tokens.viewer);
    expect(
      (listed.body.captures as { payload: unknown; kind: string; connectionId: string }[]).map((c) => c.payload),
    ).toEqual([
      { ...lead, leadOid: 44 },
      { ...lead, leadOid: 43 },
    ]);
    expect(listed.body.captures).toMatchObject([
      { kind: made.body.profileKind, connectionId },
      { kind: made.body.profileKind, connectionId },
    ]);
    // Still only the submission from before capture mode.
    expect((await api(`/submissions?connectionId=${connectionId}`, tokens.admin)).body.submissions).toHaveLength(1);
    expect((await api(`/connections/${connectionId}/captures`, tokens.rival)).status).toBe(404);
  });
});

describe("captured payloads are erased like submissions (D-317)", () => {
  it("an erasure by e-mail or phone drops the captures mentioning the person, in this company only", async () => {
    const key = await acme.issueKey();
    const theirs = await rival.issueKey();
    for (const k of [key, theirs]) {
      await t.gateway.ctx.vendorKeys.update(k.id, { captureSince: new Date().toISOString() });
    }
    const person = { who: { mail: "Forget.Capture@example.com", tel: "+1 (512) 555-0142" } };
    await postJson(`${t.url}/api/inbound/leads`, person, { "x-api-key": key.key });
    await postJson(`${t.url}/api/inbound/leads`, { who: { mail: "keep@example.com" } }, { "x-api-key": key.key });
    await postJson(`${t.url}/api/inbound/leads`, person, { "x-api-key": theirs.key });

    const erased = await erasePerson({
      ctx: t.gateway.ctx,
      companyId: acme.company.id,
      input: { phone: "15125550142" },
    });
    expect(erased.captures).toBe(1);
    const left = (await api(`/keys/${key.id}/captures`, tokens.admin)).body.captures as { payload: unknown }[];
    expect(left.map((c) => c.payload)).toEqual([{ who: { mail: "keep@example.com" } }]);
    // Another company's capture of the same person is theirs to erase.
    expect((await api(`/keys/${theirs.id}/captures`, tokens.rival)).body.captures).toHaveLength(1);
  });

  it("the retention purge drops captures older than the retention period, keeping newer ones", async () => {
    const key = await acme.issueKey();
    await t.gateway.ctx.vendorKeys.update(key.id, { captureSince: new Date().toISOString() });
    const ctx = t.gateway.ctx;
    const realNow = ctx.now;
    try {
      ctx.now = () => new Date(Date.now() - (ctx.settings.retentionDays + 1) * 86_400_000);
      await postJson(`${t.url}/api/inbound/leads`, { old: true }, { "x-api-key": key.key });
    } finally {
      ctx.now = realNow;
    }
    await postJson(`${t.url}/api/inbound/leads`, { old: false }, { "x-api-key": key.key });
    expect((await api(`/keys/${key.id}/captures`, tokens.admin)).body.captures).toHaveLength(2);
    await purgeExpiredPayloads({ ctx });
    const left = (await api(`/keys/${key.id}/captures`, tokens.admin)).body.captures as { payload: unknown }[];
    expect(left.map((c) => c.payload)).toEqual([{ old: false }]);
  });
});
