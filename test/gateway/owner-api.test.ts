import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { previewAnswer } from "../../src/gateway/owner/routes/golden.schemas.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

const LEAD = `{ "fullName": name, "email": mail, "phone": tel, "address": addr }`;
const sample = { name: "n", payload: { name: "Ada", mail: "ada@example.com", tel: "5550102000", addr: "1 Main St" } };
const sampleBody = { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };

let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let rival: Awaited<ReturnType<typeof seedCompany>>;
let acmeToken: string;
let rivalToken: string;

async function bearer(email: string): Promise<string> {
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = await json(signIn);
  const res = await postJson(`${t.url}/owner/v1/tokens`, { name: "ci" }, { cookie, "x-csrf-token": String(csrfToken) });
  return String((await json(res)).token);
}

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${t.url}/owner/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) },
  });

beforeAll(async () => {
  t = await startTestGateway();
  acme = await seedCompany(t.gateway, "Acme");
  rival = await seedCompany(t.gateway, "Rival");
  acmeToken = await bearer(acme.email);
  rivalToken = await bearer(rival.email);
});
afterAll(() => t.close());

describe("owner sessions and tokens", () => {
  it("sets an HttpOnly, SameSite=Strict session cookie and refuses a wrong password", async () => {
    const ok = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: OWNER_PASSWORD });
    expect(ok.status).toBe(200);
    const cookie = String(ok.headers.get("set-cookie"));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const bad = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: "wrong password!!" });
    expect(bad.status).toBe(401);
  });

  it("refuses a session mutation without the CSRF token, and accepts it with", async () => {
    const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: OWNER_PASSWORD });
    const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
    const { csrfToken } = await json(signIn);
    const without = await postJson(`${t.url}/owner/v1/tokens`, { name: "x" }, { cookie });
    expect(without.status).toBe(403);
    const read = await fetch(`${t.url}/owner/v1/me`, { headers: { cookie } });
    expect(read.status).toBe(200);
    const withToken = await postJson(
      `${t.url}/owner/v1/tokens`,
      { name: "x" },
      { cookie, "x-csrf-token": String(csrfToken) },
    );
    expect(withToken.status).toBe(201);
  });

  it("answers 401 without credentials and after a token is revoked", async () => {
    expect((await fetch(`${t.url}/owner/v1/keys`)).status).toBe(401);
    const token = await bearer(acme.email);
    const me = await json(await api("/me", token));
    expect((await api("/keys", token)).status).toBe(200);
    await api(`/tokens/${me.tokenId}`, token, { method: "DELETE" });
    expect((await api("/keys", token)).status).toBe(401);
  });
});

describe("vendor keys and upstream credentials through the owner API", () => {
  it("shows a new key's secret once, then only its first 14 characters", async () => {
    const created = await api("/keys", acmeToken, {
      method: "POST",
      body: JSON.stringify({
        name: "LeadMarket",
        partnerType: "lead_source",
        scopes: ["leads:write"],
        credentialId: acme.credential.id,
      }),
    });
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(String(body.key)).toMatch(/^svc_test_[a-z0-9]{16}\.[A-Za-z0-9_-]{43}$/);
    const list = JSON.stringify(await json(await api("/keys", acmeToken)));
    expect(list).toContain(String(body.key).slice(0, 14));
    expect(list).not.toContain(String(body.key).split(".")[1]);
  });

  it("never returns an upstream credential's value", async () => {
    const value = `svc_test_ownerapi1.${"s".repeat(40)}`;
    const created = await api("/credentials", acmeToken, {
      method: "POST",
      body: JSON.stringify({ name: "second", value }),
    });
    expect(created.status).toBe(201);
    const text = JSON.stringify(await json(created)) + JSON.stringify(await json(await api("/credentials", acmeToken)));
    expect(text).not.toContain("s".repeat(40));
    expect(text).toContain(value.slice(0, 14));
  });

  it("refuses mutations from a viewer with 403", async () => {
    await createOwner({
      ctx: t.gateway.ctx,
      input: {
        companyId: acme.company.id,
        email: "viewer@acme.test",
        name: "V",
        role: "viewer",
        password: OWNER_PASSWORD,
      },
    });
    const token = await bearer("viewer@acme.test");
    expect((await api("/keys", token)).status).toBe(200);
    const res = await api("/profiles", token, { method: "POST", body: JSON.stringify({ name: "v", kind: "lead" }) });
    expect(res.status).toBe(403);
  });
});

describe("tenant isolation: another company's resource is a 404", () => {
  it("hides keys, credentials, profiles, versions and submissions across companies", async () => {
    const key = await acme.issueKey();
    const { profile, version } = await acme.publishProfile("lead", LEAD, [{ ...sample, expect: { body: sampleBody } }]);
    const sub = await json(await postJson(`${t.url}/api/inbound/leads`, sampleBody, { "x-api-key": key.key }));
    const attempts: [string, RequestInit?][] = [
      [`/keys/${key.id}/revoke`, { method: "POST" }],
      [`/keys/${key.id}`, { method: "PATCH", body: JSON.stringify({ name: "stolen" }) }],
      [
        `/credentials/${acme.credential.id}/rotate`,
        { method: "POST", body: JSON.stringify({ value: `svc_test_x1234567.${"y".repeat(30)}` }) },
      ],
      [`/profiles/${profile.id}/versions`],
      [`/profile-versions/${version.id}/publish`, { method: "POST" }],
      [`/profiles/${profile.id}/rollback`, { method: "POST", body: JSON.stringify({ versionId: version.id }) }],
      [`/submissions/${sub.submissionId}`],
    ];
    for (const [path, init] of attempts) {
      const res = await api(path, rivalToken, init);
      expect(res.status, path).toBe(404);
    }
    const list = await json(await api("/submissions", rivalToken));
    expect(list.submissions).toEqual([]);
    const bind = await api("/keys", rivalToken, {
      method: "POST",
      body: JSON.stringify({
        name: "x",
        partnerType: "lead_source",
        scopes: ["leads:write"],
        credentialId: rival.credential.id,
        leadProfileVersionId: version.id,
      }),
    });
    expect(bind.status).toBe(404);
  });
});

describe("profiles: save, test, publish, roll back, preview, replay", () => {
  it("reports a syntax error with line and column", async () => {
    const profile = await json(
      await api("/profiles", acmeToken, { method: "POST", body: JSON.stringify({ name: "broken", kind: "lead" }) }),
    );
    const res = await api(`/profiles/${profile.id}/versions`, acmeToken, {
      method: "POST",
      body: JSON.stringify({ expression: '{\n  "fullName": name,\n  "email": (mail\n}', samples: [] }),
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.field).toBe("expression");
    expect(body.line).toBe(4);
    expect(typeof body.column).toBe("number");
  });

  it("refuses to publish while a golden sample fails, and publishes once it passes", async () => {
    const profile = await json(
      await api("/profiles", acmeToken, { method: "POST", body: JSON.stringify({ name: "gated", kind: "lead" }) }),
    );
    const wrong = { ...sample, expect: { body: { ...sampleBody, fullName: "Not Ada" } } };
    const saved = await json(
      await api(`/profiles/${profile.id}/versions`, acmeToken, {
        method: "POST",
        body: JSON.stringify({ expression: LEAD, samples: [wrong] }),
      }),
    );
    const version = saved.version as { id: string; samplesPassed: boolean };
    expect(version.samplesPassed).toBe(false);
    expect((await api(`/profile-versions/${version.id}/publish`, acmeToken, { method: "POST" })).status).toBe(422);
    const fixed = await json(
      await api(`/profiles/${profile.id}/versions`, acmeToken, {
        method: "POST",
        body: JSON.stringify({ expression: LEAD, samples: [{ ...sample, expect: { body: sampleBody } }] }),
      }),
    );
    const good = fixed.version as { id: string; version: number };
    expect(good.version).toBe(2);
    const published = await api(`/profile-versions/${good.id}/publish`, acmeToken, { method: "POST" });
    expect(published.status).toBe(200);
    expect((await json(published)).status).toBe("published");
  });

  it("rolls every bound key back to an earlier published version", async () => {
    const first = await acme.publishProfile("lead", LEAD, [{ ...sample, expect: { body: sampleBody } }]);
    const key = await acme.issueKey({ leadProfileVersionId: first.version.id });
    const v2 = await json(
      await api(`/profiles/${first.profile.id}/versions`, acmeToken, {
        method: "POST",
        body: JSON.stringify({
          expression: LEAD.replace('"fullName": name', '"fullName": $uppercase(name)'),
          samples: [{ ...sample, expect: { body: { ...sampleBody, fullName: "ADA" } } }],
        }),
      }),
    );
    const v2id = (v2.version as { id: string }).id;
    await api(`/profile-versions/${v2id}/publish`, acmeToken, { method: "POST" });
    await api(`/keys/${key.id}`, acmeToken, { method: "PATCH", body: JSON.stringify({ leadProfileVersionId: v2id }) });
    const rolled = await json(
      await api(`/profiles/${first.profile.id}/rollback`, acmeToken, {
        method: "POST",
        body: JSON.stringify({ versionId: first.version.id }),
      }),
    );
    expect(rolled.reboundKeys).toEqual([key.id]);
    const keys = (await json(await api("/keys", acmeToken))).keys as { id: string; leadProfileVersionId: string }[];
    expect(keys.find((k) => k.id === key.id)?.leadProfileVersionId).toBe(first.version.id);
  });

  it("previews a draft with the output, the validation error with both paths, and the time taken", async () => {
    const res = await api("/profiles/preview", acmeToken, {
      method: "POST",
      body: JSON.stringify({ kind: "lead", expression: LEAD, payload: { ...sample.payload, mail: "nope" } }),
    });
    const body = await json(res);
    expect(body).toMatchObject({ ok: false, kind: "validation", field: "email", sourcePath: "mail" });
    expect(typeof body.elapsedMs).toBe("number");
  });

  it("previews a profile that produces records: the records in order; a canonical body keeps its body", async () => {
    const records = `[{"kind": "lead", "id": ref, "body": ${LEAD}}, {"kind": "appointment", "body": {"startsAt": at, "endsAt": until, "idempotencyKey": "booking:" & ref}}]`;
    const booking = {
      ...sample.payload,
      ref: "s-1",
      at: "2026-12-01T15:00:00.000Z",
      until: "2026-12-01T16:00:00.000Z",
    };
    const preview = (expression: string, payload: unknown) =>
      api("/profiles/preview", acmeToken, {
        method: "POST",
        body: JSON.stringify({ kind: "lead", expression, payload }),
      }).then(json);
    const answer = await preview(records, booking);
    // The answer is the one the route declares (zod-openapi schema), as the contract suite checks for its requests.
    expect(previewAnswer.safeParse(answer).success).toBe(true);
    expect(answer).toEqual({
      ok: true,
      records: [
        { kind: "lead", id: "s-1", body: sampleBody },
        {
          kind: "appointment",
          body: { startsAt: booking.at, endsAt: booking.until, idempotencyKey: "booking:s-1" },
        },
      ],
      elapsedMs: expect.any(Number),
    });
    expect(await preview(records, { ...booking, until: booking.at })).toMatchObject({
      ok: false,
      kind: "validation",
      field: "records[1].endsAt",
      sourcePath: "until",
    });
    expect(await preview(LEAD, sample.payload)).toEqual({ ok: true, body: sampleBody, elapsedMs: expect.any(Number) });
  });

  it("runs a draft's samples that expect records, naming the record and field that differ", async () => {
    const profile = await json(
      await api("/profiles", acmeToken, { method: "POST", body: JSON.stringify({ name: "records", kind: "lead" }) }),
    );
    const expression = `{"kind": "lead", "id": ref, "test": true, "body": ${LEAD}}`;
    const payload = { ...sample.payload, ref: "s-2" };
    const res = await api(`/profiles/${profile.id}/test`, acmeToken, {
      method: "POST",
      body: JSON.stringify({
        expression,
        samples: [
          { name: "good", payload, expect: { records: [{ kind: "lead", id: "s-2", test: true, body: sampleBody }] } },
          { name: "not a test", payload, expect: { records: [{ kind: "lead", id: "s-2", body: sampleBody }] } },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const report = await json(res);
    expect(report).toMatchObject({ passed: false, total: 2, failed: 1 });
    expect(report.results).toMatchObject([
      { name: "good", passed: true, outcome: { ok: true, records: [{ kind: "lead", test: true }] } },
      {
        name: "not a test",
        passed: false,
        // An absent side of a difference is left out of the JSON answer.
        diff: [{ path: "records[0].test", actual: true }],
      },
    ]);
  });

  it("replays a key's recent payloads through a draft and diffs them per field", async () => {
    const { version } = await acme.publishProfile("lead", LEAD, [{ ...sample, expect: { body: sampleBody } }]);
    const key = await acme.issueKey({ leadProfileVersionId: version.id });
    for (const name of ["Ada", "Grace"]) {
      await postJson(`${t.url}/api/inbound/leads`, { ...sample.payload, name }, { "x-api-key": key.key });
    }
    const res = await api("/profiles/replay", acmeToken, {
      method: "POST",
      body: JSON.stringify({
        keyId: key.id,
        kind: "lead",
        expression: LEAD.replace("name", "$uppercase(name)"),
        limit: 10,
      }),
    });
    const body = await json(res);
    expect(body.replayed).toBe(2);
    expect(body.changed).toBe(2);
    const results = body.results as { changes: { field: string; before: unknown; after: unknown }[] }[];
    expect(results[0]?.changes).toEqual([{ field: "fullName", before: "Grace", after: "GRACE" }]);
  });
});

describe("retention: erasing a person's data", () => {
  it("drops the payloads of every submission with that email and fails the unsent ones", async () => {
    const key = await acme.issueKey();
    const sub = await json(
      await postJson(
        `${t.url}/api/inbound/leads`,
        { ...sampleBody, email: "Forget.Me@example.com" },
        { "x-api-key": key.key },
      ),
    );
    const res = await api("/erasures", acmeToken, {
      method: "POST",
      body: JSON.stringify({ email: "forget.me@example.com" }),
    });
    expect(await json(res)).toEqual({
      erased: 1,
      appointments: 0,
      mappingFailures: 0,
      captures: 0,
      samples: 0,
      webhookEvents: 0,
      pendingDeliveries: 0,
      platformEvents: 0,
      walTruncated: true,
    });
    const detail = await json(await api(`/submissions/${sub.submissionId}`, acmeToken));
    expect(detail).toMatchObject({ rawPayload: null, canonicalBody: null, status: "failed" });
  });
});
