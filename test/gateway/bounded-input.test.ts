import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_BODY, PAYLOAD_BODY } from "../../src/http/body-limit.js";
import { MAX_JSON_DEPTH } from "../../src/http/json-depth.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { rawRequest } from "../helpers/raw-http.js";

/**
 * docs/decisions.md, "Bounded input": no request, signed in or not, makes the gateway hold more than a bounded amount
 * for it. §8 sets the Inbound API's 1 MB; the owner API's limits are the gateway's own.
 */
let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let token: string;
let plainKey: string;

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const lead = { fullName: "Ada Lovelace", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };

beforeAll(async () => {
  t = await startTestGateway({ trustedProxy: { ranges: ["127.0.0.1"], header: "x-forwarded-for" } });
  acme = await seedCompany(t.gateway, "Bounded");
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(signIn)).csrfToken);
  const created = await postJson(`${t.url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": csrf });
  token = String((await json(created)).token);
  plainKey = (await acme.issueKey()).key;
});
afterAll(() => t.close());

const owner = (path: string) => `${t.url}/owner/v1${path}`;
const bearer = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

describe("unauthenticated sign-ins hold nothing unbounded (docs/decisions.md, Bounded input)", () => {
  it("answers a sign-in body over the owner API's limit with 413 before the body is read whole", async () => {
    // 1 MB or 5 MB declared, a few bytes sent: the answer comes while the rest of the body is still owed. Past the
    // largest limit of any route, before routing.
    for (const [declared, limit] of [
      [1_000_000, OWNER_BODY.maxBytes],
      [5_000_000, PAYLOAD_BODY.maxBytes],
    ]) {
      const res = await rawRequest(owner("/sessions"), {
        headers: { "content-type": "application/json" },
        declaredLength: declared,
        chunks: ['{"email":"'],
      });
      expect(res.status).toBe(413);
      // The owner API's error body (D-231): §7's message, the stable code, the request's id.
      expect(JSON.parse(res.body)).toEqual({
        error: `request body exceeds ${limit} bytes`,
        code: "payload_too_large",
        requestId: res.headers["x-request-id"],
      });
    }
  });

  it("answers a chunked sign-in body with 413 as soon as it passes the limit", async () => {
    const chunk = "a".repeat(16 * 1024);
    const res = await rawRequest(owner("/sessions"), {
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks: ['{"email":"', ...Array.from({ length: 20 }, () => chunk), '","password":"x"}'],
    });
    expect(res.status).toBe(413);
  });

  it("refuses an e-mail over 254 characters with 400 before any password is hashed", async () => {
    const email = `${"a".repeat(250)}@example.com`;
    const res = await postJson(owner("/sessions"), { email, password: OWNER_PASSWORD });
    expect(res.status).toBe(400);
    expect(String((await json(res)).error)).toMatch(/^email: /);
  });

  it("keys sign-ins by the client in the trusted proxy's header: one client's limit is not another's", async () => {
    let n = 0;
    const attempt = (client: string) =>
      postJson(
        owner("/sessions"),
        { email: `nobody-${++n}@example.test`, password: "not the password" },
        { "x-forwarded-for": `203.0.113.9, ${client}` },
      );
    // 50 quick attempts per address, whatever the account (then one every 2.4 s): past them, refused.
    const tries = await Promise.all(Array.from({ length: 60 }, () => attempt("198.51.100.7")));
    const refused = tries.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(10);
    expect(Number(refused[0]?.headers.get("retry-after"))).toBeGreaterThan(0);
    // The address the client wrote itself (left of it) is not trusted; another client is not limited.
    expect((await attempt("198.51.100.8")).status).toBe(401);
    // An IPv6 client is one client across its /64.
    const v6 = await Promise.all(
      Array.from({ length: 60 }, (_, i) => attempt(`2001:db8:7:7::${(i + 1).toString(16)}`)),
    );
    expect(v6.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect((await attempt("2001:db8:7:8::1")).status).toBe(401);
  });
});

describe("body limits on every route (docs/decisions.md, Bounded input)", () => {
  it("takes an owner body up to its route's limit and refuses one past it with 413", async () => {
    const name = "n".repeat(100);
    const padded = `{"name":"${name}"${" ".repeat(OWNER_BODY.maxBytes - 200)}}`;
    const ok = await fetch(owner("/tokens"), { method: "POST", headers: bearer(), body: padded });
    expect(ok.status).toBe(201);
    const over = `{"name":"x"${" ".repeat(OWNER_BODY.maxBytes)}}`;
    const res = await fetch(owner("/tokens"), { method: "POST", headers: bearer(), body: over });
    expect(res.status).toBe(413);
  });

  it("takes a payload as large as intake's on the routes that carry payloads, and no more than their cap", async () => {
    const payload = { ...lead, notes: "x".repeat(990_000) };
    const expression = '{"fullName": fullName, "email": email, "phone": phone, "address": address}';
    const res = await fetch(owner("/profiles/preview"), {
      method: "POST",
      headers: bearer(),
      body: JSON.stringify({ kind: "lead", expression, payload }),
    });
    // Taken and evaluated (the outcome itself is the tooling lane's business, and a busy machine's).
    expect(res.status).toBe(200);
    expect(typeof (await json(res)).ok).toBe("boolean");
    const huge = await rawRequest(owner("/profiles/preview"), {
      headers: bearer(),
      declaredLength: PAYLOAD_BODY.maxBytes + 1,
      chunks: ["{"],
    });
    expect(huge.status).toBe(413);
  });

  it("refuses a body sent to a route that takes none past the owner API's limit, and any route past the largest", async () => {
    const tooMuch = "x".repeat(OWNER_BODY.maxBytes + 1);
    const res = await fetch(owner("/keys"), { method: "POST", headers: bearer(), body: tooMuch });
    // POST /keys takes a body (a vendor key); GET /keys takes none.
    expect(res.status).toBe(413);
    const chunked = { ...bearer(), "transfer-encoding": "chunked" };
    const get = await rawRequest(owner("/keys"), { method: "GET", headers: chunked, chunks: [tooMuch] });
    expect(get.status).toBe(413);
    const health = await rawRequest(`${t.url}/health/live`, {
      method: "GET",
      declaredLength: PAYLOAD_BODY.maxBytes + 1,
      chunks: ["x"],
    });
    expect(health.status).toBe(413);
    expect((await fetch(`${t.url}/health/live`)).status).toBe(200);
  });
});

describe("nesting limit on every JSON body (docs/decisions.md, Bounded input)", () => {
  it("answers a lead of 20,000 nested arrays with an Idempotency-Key with 400 naming the limit, not 500", async () => {
    const res = await postJson(`${t.url}/api/inbound/leads`, nested(20_000), {
      "x-api-key": plainKey,
      "idempotency-key": "deep-1",
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      maxDepth: MAX_JSON_DEPTH,
    });
  });

  it("takes a lead nested exactly to the limit, brackets inside strings not counted", async () => {
    const payload = { ...lead, deep: JSON.parse(nested(MAX_JSON_DEPTH - 1)), note: "[[[[{{{{".repeat(20) };
    const res = await postJson(`${t.url}/api/inbound/leads`, payload, {
      "x-api-key": plainKey,
      "idempotency-key": "d2",
    });
    expect(res.status).toBe(202);
    const deeper = { ...payload, deep: JSON.parse(nested(MAX_JSON_DEPTH)) };
    const refused = await postJson(`${t.url}/api/inbound/leads`, deeper, { "x-api-key": plainKey });
    expect(refused.status).toBe(400);
  });

  it("answers a preview, a sample test and a replay request nested past their limit with 400", async () => {
    const expression = '{"fullName": "x"}';
    const deep = JSON.parse(nested(PAYLOAD_BODY.maxDepth)) as unknown;
    const preview = await fetch(owner("/profiles/preview"), {
      method: "POST",
      headers: bearer(),
      body: JSON.stringify({ kind: "lead", expression, payload: deep }),
    });
    expect(preview.status).toBe(400);
    expect(String((await json(preview)).error)).toMatch(/deeper than \d+ levels/);
    const profile = await fetch(owner("/profiles"), {
      method: "POST",
      headers: bearer(),
      body: JSON.stringify({ name: "deep", kind: "lead" }),
    });
    const profileId = String((await json(profile)).id);
    const samples = [{ name: "s", payload: deep, expect: { body: {} } }];
    const test = await fetch(owner(`/profiles/${profileId}/test`), {
      method: "POST",
      headers: bearer(),
      body: JSON.stringify({ expression, samples }),
    });
    expect(test.status).toBe(400);
    const replay = await fetch(owner("/profiles/replay"), {
      method: "POST",
      headers: bearer(),
      body: JSON.stringify({ keyId: JSON.parse(nested(OWNER_BODY.maxDepth)), kind: "lead", expression }),
    });
    expect(replay.status).toBe(400);
    expect(String((await json(replay)).error)).toBe(
      `request body nests arrays and objects deeper than ${OWNER_BODY.maxDepth} levels`,
    );
  });
});
