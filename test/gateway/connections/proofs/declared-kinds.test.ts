import { describe, expect, it } from "vitest";
import {
  PROOF_REFUSAL_STATUS,
  proofDeclarationSchema,
  proofNeedsParsedBody,
  secretsNamedBy,
  verifyProof,
} from "../../../../src/gateway/connections/proofs/index.js";
import { declare, hmac, hookRequest, secretsOf } from "./hook-request.js";

/** docs/connections.md, "Proofs and handshakes": the kinds of proof a preset can declare, beyond any one vendor. */
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe("none: the hook URL's token is the only proof", () => {
  it("accepts any request", () => {
    expect(verifyProof(declare({ type: "none" }), hookRequest(), secretsOf({}), NOW)).toEqual({ ok: true });
  });
});

describe("HTTP Basic", () => {
  const declaration = declare({ type: "basic", username: "basicUser", password: "basicPassword" });
  // RFC 7617 §2's example: user-id "Aladdin", password "open sesame".
  const secrets = secretsOf({ basicUser: "Aladdin", basicPassword: "open sesame" });
  const verify = (authorization?: string) =>
    verifyProof(
      declaration,
      hookRequest({ headers: authorization === undefined ? {} : { Authorization: authorization } }),
      secrets,
      NOW,
    );

  it("accepts RFC 7617's example, whatever the case of the scheme", () => {
    expect(verify("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")).toEqual({ ok: true });
    expect(verify("basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")).toEqual({ ok: true });
  });

  it("refuses another password or another user (proof_mismatch)", () => {
    const encode = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;
    expect(verify(encode("Aladdin:open sesame!"))).toMatchObject({ code: "proof_mismatch", status: 401 });
    expect(verify(encode("aladdin:open sesame"))).toMatchObject({ code: "proof_mismatch" });
    // A password may itself hold colons: only the first one separates.
    const colons = secretsOf({ basicUser: "Aladdin", basicPassword: "open:sesame" });
    const request = hookRequest({ headers: { authorization: encode("Aladdin:open:sesame") } });
    expect(verifyProof(declaration, request, colons, NOW)).toEqual({ ok: true });
  });

  it("refuses no Authorization (proof_missing), and another scheme or undecodable credentials (proof_malformed)", () => {
    expect(verify()).toMatchObject({ code: "proof_missing" });
    expect(verify("Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ==")).toMatchObject({ code: "proof_malformed" });
    expect(verify(`Basic ${Buffer.from("no colon").toString("base64")}`)).toMatchObject({ code: "proof_malformed" });
    expect(verify(`Basic ${Buffer.from([0x41, 0x3a, 0xff]).toString("base64")}`)).toMatchObject({
      code: "proof_malformed",
    });
    expect(verify("Basic !!!")).toMatchObject({ code: "proof_malformed" });
  });
});

describe("secret: a shared secret sent as it is", () => {
  const secrets = secretsOf({ token: "s3cr3t-value" });

  it("in a header after a prefix matched without regard to case", () => {
    const declaration = declare({
      type: "secret",
      secret: "token",
      in: "header",
      name: "Authorization",
      prefix: "Bearer ",
    });
    const verify = (value: string) =>
      verifyProof(declaration, hookRequest({ headers: { authorization: value } }), secrets, NOW);
    expect(verify("Bearer s3cr3t-value")).toEqual({ ok: true });
    expect(verify("bearer s3cr3t-value")).toEqual({ ok: true });
    expect(verify("Bearer s3cr3t-valuf")).toMatchObject({ code: "proof_mismatch" });
    expect(verify("Token s3cr3t-value")).toMatchObject({ code: "proof_malformed" });
    expect(verifyProof(declaration, hookRequest(), secrets, NOW)).toMatchObject({ code: "proof_missing" });
  });

  it("in a query parameter, refusing one given twice", () => {
    const declaration = declare({ type: "secret", secret: "token", in: "query", name: "key" });
    const verify = (query: Record<string, string | string[]>) =>
      verifyProof(declaration, hookRequest({ query }), secrets, NOW);
    expect(verify({ key: "s3cr3t-value" })).toEqual({ ok: true });
    expect(verify({ key: ["s3cr3t-value"] })).toEqual({ ok: true });
    expect(verify({ key: "s3cr3t" })).toMatchObject({ code: "proof_mismatch" });
    expect(verify({ key: ["s3cr3t-value", "s3cr3t-value"] })).toMatchObject({ code: "proof_malformed" });
    expect(verify({ other: "s3cr3t-value" })).toMatchObject({ code: "proof_missing" });
  });

  it("at a dotted path of the parsed body, never through a prototype", () => {
    const declaration = declare({ type: "secret", secret: "token", in: "body", name: "meta.auth.0" });
    const verify = (body: unknown) => verifyProof(declaration, hookRequest({ body }), secrets, NOW);
    expect(verify({ meta: { auth: ["s3cr3t-value"] } })).toEqual({ ok: true });
    expect(verify({ meta: { auth: [] } })).toMatchObject({ code: "proof_missing" });
    const proto = declare({ type: "secret", secret: "token", in: "body", name: "constructor.name" });
    expect(verifyProof(proto, hookRequest({ body: {} }), secretsOf({ token: "Object" }), NOW)).toMatchObject({
      code: "proof_missing",
    });
  });

  it("is the only kind the route parses the body for first (D-285)", () => {
    expect(proofNeedsParsedBody(declare({ type: "secret", secret: "k", in: "body", name: "google_key" }))).toBe(true);
    expect(proofNeedsParsedBody(declare({ type: "secret", secret: "k", in: "header", name: "X-Key" }))).toBe(false);
    expect(proofNeedsParsedBody(declare({ type: "basic", username: "u", password: "p" }))).toBe(false);
  });
});

describe("a connection without the secret its declaration names", () => {
  it("is refused as proof_unconfigured, a 503 the vendor retries (D-286), for every kind", () => {
    const request = hookRequest({ headers: { "x-sig": "00", authorization: "Basic QTpC" }, body: { k: "v" } });
    const declarations = [
      declare({ type: "hmac", algorithm: "sha256", secret: "s", signature: { header: "X-Sig", encoding: "hex" } }),
      declare({ type: "secret", secret: "s", in: "body", name: "k" }),
      declare({ type: "basic", username: "u", password: "p" }),
    ];
    for (const declaration of declarations) {
      expect(verifyProof(declaration, request, secretsOf({ s: "", u: "A" }), NOW)).toMatchObject({
        code: "proof_unconfigured",
        status: 503,
      });
    }
    expect(PROOF_REFUSAL_STATUS.proof_unconfigured).toBe(503);
    expect(secretsNamedBy(declarations[2] ?? declare({ type: "none" }))).toEqual(["u", "p"]);
  });
});

describe("the signed string is a template over the request", () => {
  const secrets = secretsOf({ key: "k" });

  it("signs {method} {url} {path} {query} as sent, with literal text between", () => {
    const declaration = declare({
      type: "hmac",
      algorithm: "sha256",
      secret: "key",
      signature: { header: "X-Sig", encoding: "hex" },
      signed: "{method}\n{path}?{query}\n{url}\n{body}",
    });
    const url = "https://gateway.example.com/hooks/tok_abc?a=1&b=%20x";
    const body = Buffer.from("payload");
    const signed = hmac("sha256", "k", "POST\n/hooks/tok_abc?a=1&b=%20x\n", url, "\n", body).toString("hex");
    const request = (fields: { url?: string; method?: string }) =>
      hookRequest({ url, method: "POST", headers: { "x-sig": signed }, rawBody: body, ...fields });
    expect(verifyProof(declaration, request({}), secrets, Date.now())).toEqual({ ok: true });
    expect(verifyProof(declaration, request({ method: "PUT" }), secrets, Date.now())).toMatchObject({
      code: "proof_mismatch",
    });
    expect(verifyProof(declaration, request({ url: `${url}&c=2` }), secrets, Date.now())).toMatchObject({
      code: "proof_mismatch",
    });
  });

  it("reads a timestamp in milliseconds from a header of its own", () => {
    const declaration = declare({
      type: "hmac",
      algorithm: "sha256",
      secret: "key",
      signature: { header: "X-Sig", prefix: "v0=", encoding: "base64" },
      signed: "{timestamp}:{body}",
      timestamp: { header: "X-Sig-Time", unit: "ms", toleranceSeconds: 60 },
    });
    const verify = (ms: number) => {
      const signature = hmac("sha256", "k", `${ms}:`, "body").toString("base64");
      const headers = { "x-sig": `v0=${signature}`, "x-sig-time": String(ms) };
      return verifyProof(declaration, hookRequest({ headers, rawBody: Buffer.from("body") }), secrets, NOW);
    };
    expect(verify(NOW - 60_000)).toEqual({ ok: true });
    expect(verify(NOW + 60_000)).toEqual({ ok: true });
    expect(verify(NOW - 60_001)).toMatchObject({ code: "proof_stale" });
    expect(verify(NOW + 60_001)).toMatchObject({ code: "proof_stale" });
    // A caller's clock that is not a number fails closed.
    const signature = hmac("sha256", "k", `${NOW}:`, "body").toString("base64");
    const fresh = hookRequest({
      headers: { "x-sig": `v0=${signature}`, "x-sig-time": String(NOW) },
      rawBody: Buffer.from("body"),
    });
    expect(verifyProof(declaration, fresh, secrets, Number.NaN)).toMatchObject({ code: "proof_stale" });
    const noTime = { "x-sig": `v0=${hmac("sha256", "k", "body").toString("base64")}` };
    expect(
      verifyProof(declaration, hookRequest({ headers: noTime, rawBody: Buffer.from("body") }), secrets, NOW),
    ).toMatchObject({ code: "proof_missing" });
  });
});

describe("the declaration's schema", () => {
  const hmacBase = { type: "hmac", algorithm: "sha256", secret: "s", signature: { header: "X-Sig", encoding: "hex" } };
  const refused = (input: unknown) => !proofDeclarationSchema.safeParse(input).success;

  it("accepts the contract's examples and fills in {body}, seconds and 300 s", () => {
    expect(declare({ type: "none" })).toEqual({ type: "none" });
    expect(
      declare({ ...hmacBase, type: "hmac", algorithm: "sha256", signature: { header: "X", encoding: "hex" } }),
    ).toMatchObject({ signed: "{body}" });
    const stamped = proofDeclarationSchema.parse({
      ...hmacBase,
      signature: { header: "X-Sig", encoding: "hex", element: "v1" },
      signed: "{timestamp}.{body}",
      timestamp: { element: "t" },
    });
    expect(stamped).toMatchObject({ timestamp: { element: "t", unit: "s", toleranceSeconds: 300 } });
  });

  it("refuses an unknown placeholder, a stray brace, or {timestamp} with no timestamp declared", () => {
    expect(refused({ ...hmacBase, signed: "{bodyy}" })).toBe(true);
    expect(refused({ ...hmacBase, signed: "{body}}" })).toBe(true);
    expect(refused({ ...hmacBase, signed: "{timestamp}.{body}" })).toBe(true);
    // Positive control: the same template with a timestamp.
    expect(refused({ ...hmacBase, signed: "{timestamp}.{body}", timestamp: { header: "X-Time" } })).toBe(false);
  });

  it("refuses a timestamp element of a signature header that has no elements, and a timestamp with no source", () => {
    expect(refused({ ...hmacBase, signed: "{timestamp}.{body}", timestamp: { element: "t" } })).toBe(true);
    expect(refused({ ...hmacBase, timestamp: { unit: "s" } })).toBe(true);
  });

  it("refuses unknown keys, a header name that is not a token, and a body path with a space", () => {
    expect(refused({ ...hmacBase, extra: true })).toBe(true);
    expect(refused({ ...hmacBase, signature: { header: "X Sig", encoding: "hex" } })).toBe(true);
    expect(refused({ type: "secret", secret: "s", in: "body", name: "a b" })).toBe(true);
    expect(refused({ type: "secret", secret: "s", in: "header", name: "X:Key" })).toBe(true);
    expect(refused({ type: "secret", secret: "s", in: "body", name: "a.b" })).toBe(false);
  });
});
