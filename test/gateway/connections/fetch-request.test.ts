import { describe, expect, it } from "vitest";
import { responseOutcome, TOKEN_REFUSED } from "../../../src/gateway/connections/fetch-outcome.js";
import { FETCH_USER_AGENT, vendorRequest } from "../../../src/gateway/connections/fetch-request.js";
import { type FetchDeclaration, fetchSchema } from "../../../src/gateway/connections/presets/index.js";
import type { OutboundResponse } from "../../../src/net/index.js";

/**
 * docs/connections.md, "Fetch after notify" (D-320, D-322): the request for one notified record, built from the
 * declaration, the target's values and the connection's secrets; and what the vendor's answer makes of the record.
 */

const declare = (fields: Partial<Record<keyof FetchDeclaration, unknown>> = {}): FetchDeclaration =>
  fetchSchema.parse({
    ids: "[id]",
    url: "https://api.vendor.example/v2/records/{id}?expand=contact",
    auth: { type: "bearer", secret: "token" },
    accept: "application/json",
    perMinute: 60,
    ...fields,
  });
const secrets = new Map([
  ["token", "tok-0001"],
  ["user", "4242"],
  ["pass", "p@ss:word"],
]);

describe("the request for a notified record (D-320)", () => {
  it("fills each placeholder URL-encoded, so a value chooses a segment or a query value only", () => {
    const built = vendorRequest(
      declare({ url: "https://api.vendor.example/v2/{account}/records/{id}?q={id}" }),
      { account: "a/b", id: "x y&z=1#f" },
      secrets,
      undefined,
    );
    expect(built).toMatchObject({
      ok: true,
      request: { url: "https://api.vendor.example/v2/a%2Fb/records/x%20y%26z%3D1%23f?q=x%20y%26z%3D1%23f" },
    });
  });

  it("refuses a target without a value for a placeholder, an empty one, and a dot segment", () => {
    for (const target of [{}, { id: "" }, { id: "." }, { id: ".." }] as Record<string, string>[]) {
      expect(vendorRequest(declare(), target, secrets, undefined)).toEqual({
        ok: false,
        reason: "the notification gave no usable value for {id} of the fetch URL",
      });
    }
  });

  it("sends the declared accept, the fixed headers and its user agent", () => {
    const built = vendorRequest(
      declare({ headers: { "LinkedIn-Version": "202601" } }),
      { id: "1" },
      secrets,
      undefined,
    );
    expect(built.ok && built.request.headers).toEqual({
      "LinkedIn-Version": "202601",
      accept: "application/json",
      "user-agent": FETCH_USER_AGENT,
      authorization: "Bearer tok-0001",
    });
  });

  it("applies each kind of auth with the connection's secrets", () => {
    const of = (auth: unknown) => {
      const built = vendorRequest(declare({ auth }), { id: "1" }, secrets, undefined);
      if (!built.ok) throw new Error(built.reason);
      return built.request;
    };
    expect(of({ type: "bearer", secret: "token" }).headers.authorization).toBe("Bearer tok-0001");
    expect(of({ type: "basic", username: "user", password: "pass" }).headers.authorization).toBe(
      `Basic ${Buffer.from("4242:p@ss:word").toString("base64")}`,
    );
    const query = of({ type: "query", param: "access_token", secret: "token" });
    expect(new URL(query.url).searchParams.get("access_token")).toBe("tok-0001");
    expect(new URL(query.url).searchParams.get("expand")).toBe("contact");
    expect(query.headers.authorization).toBeUndefined();
    // What the owner may read of it never carries the query's token.
    expect(query.shown).toBe("https://api.vendor.example/v2/records/1");
    expect(of({ type: "header", name: "X-Api-Key", secret: "token", prefix: "Key " }).headers["x-api-key"]).toBe(
      "Key tok-0001",
    );
  });

  it("refuses a missing secret and one a header cannot carry, naming the secret only", () => {
    expect(
      vendorRequest(declare({ auth: { type: "bearer", secret: "other" } }), { id: "1" }, secrets, undefined),
    ).toEqual({ ok: false, reason: "the connection has no secret other: set it" });
    const broken = new Map([["token", "tok\r\nX-Injected: 1"]]);
    const built = vendorRequest(declare(), { id: "1" }, broken, undefined);
    expect(built).toEqual({ ok: false, reason: "the secret token holds characters a request cannot carry" });
  });

  it("puts the sandbox's vendorApiBase in place of the origin, keeping a path it names", () => {
    const at = (base: string) => {
      const built = vendorRequest(declare(), { id: "7" }, secrets, base);
      return built.ok ? built.request.url : built.reason;
    };
    expect(at("http://127.0.0.1:4010")).toBe("http://127.0.0.1:4010/v2/records/7?expand=contact");
    expect(at("http://127.0.0.1:4010/vendor/")).toBe("http://127.0.0.1:4010/vendor/v2/records/7?expand=contact");
    expect(at("ftp://127.0.0.1/")).toBe("the connection's vendorApiBase is not an http(s) URL");
    expect(at("not a url")).toBe("the connection's vendorApiBase is not an http(s) URL");
  });
});

const response = (status: number, body: unknown, headers: Record<string, string> = {}): OutboundResponse => ({
  status,
  ok: status >= 200 && status < 300,
  headers: new Headers(headers),
  body: new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body)),
  truncated: false,
});
const outcome = (r: OutboundResponse) =>
  responseOutcome(r, Date.parse("2026-03-01T00:00:00Z"), (t) => t.replaceAll("tok-0001", "[secret]"), ["token"]);

describe("what the vendor's answer makes of the record (D-322)", () => {
  it("a 2xx JSON body is the record; one that is not JSON, too large or too deep fails", () => {
    expect(outcome(response(200, { id: "1" }))).toEqual({ kind: "record", record: { id: "1" } });
    expect(outcome(response(200, "<html>"))).toMatchObject({ kind: "failed", reason: /not JSON/ });
    expect(outcome({ ...response(200, { id: "1" }), truncated: true })).toMatchObject({ kind: "failed" });
    expect(outcome(response(200, `${"[".repeat(65)}${"]".repeat(65)}`))).toMatchObject({
      kind: "failed",
      reason: /nests deeper than 64/,
    });
  });

  it("401, 403 and Graph's token codes are a refused token; Graph's other errors are not", () => {
    for (const r of [
      response(401, ""),
      response(403, { message: "no" }),
      response(400, { error: { type: "OAuthException", code: 190 } }),
      response(400, { error: { type: "OAuthException", code: 102 } }),
    ]) {
      expect(outcome(r)).toMatchObject({
        kind: "failed",
        reason: expect.stringMatching(`^${TOKEN_REFUSED} \\(token\\)`),
      });
    }
    expect(outcome(response(400, { error: { type: "OAuthException", code: 100 } }))).toMatchObject({
      kind: "failed",
      reason: expect.not.stringContaining(TOKEN_REFUSED),
    });
  });

  it("5xx, 408 and 429 are tried again, a 429 with its Retry-After", () => {
    expect(outcome(response(502, ""))).toMatchObject({
      kind: "retry",
      reason: "the vendor's API answered 502 Bad Gateway",
    });
    expect(outcome(response(408, ""))).toMatchObject({ kind: "retry" });
    expect(outcome(response(429, "", { "retry-after": "7" }))).toEqual({
      kind: "retry",
      reason: "the vendor's API answered 429 Too Many Requests",
      retryAfterMs: 7_000,
    });
    expect(outcome(response(429, ""))).not.toHaveProperty("retryAfterMs");
  });

  it("a redirect is not followed, and what the vendor said is quoted without the connection's secrets", () => {
    expect(outcome(response(302, ""))).toMatchObject({ kind: "failed", reason: /redirect, which is not followed/ });
    const echoed = outcome(response(404, { error: "no record for access_token=tok-0001" }));
    expect(echoed).toMatchObject({ kind: "failed", reason: /404 Not Found: .*access_token=\[secret\]/ });
    expect(JSON.stringify(echoed)).not.toContain("tok-0001");
  });
});
