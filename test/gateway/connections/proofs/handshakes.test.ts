import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  answerHandshake,
  type HandshakeDeclaration,
  handshakeDeclarationSchema,
} from "../../../../src/gateway/connections/proofs/index.js";
import { hookRequest, secretsOf } from "./hook-request.js";

/** docs/connections.md, "Proofs and handshakes": URL-verification requests, answered before any proof. */

describe("Meta's verification request (echo)", () => {
  // https://developers.facebook.com/docs/graph-api/webhooks/getting-started, "Verification Requests": its sample
  // GET ...?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock, answered with the challenge.
  const meta: HandshakeDeclaration = handshakeDeclarationSchema.parse({
    type: "echo",
    method: "GET",
    when: { "hub.mode": "subscribe" },
    token: { param: "hub.verify_token", secret: "verifyToken" },
    echo: "hub.challenge",
  });
  const secrets = secretsOf({ verifyToken: "meatyhamhock" });
  const sample = { "hub.mode": "subscribe", "hub.challenge": "1158201444", "hub.verify_token": "meatyhamhock" };
  const answer = (query: Record<string, string | string[]>, method = "GET") =>
    answerHandshake(meta, hookRequest({ method, query, rawBody: Buffer.alloc(0) }), secrets);

  it("answers the documented sample with its challenge, as text/plain", () => {
    expect(answer(sample)).toEqual({ kind: "answer", status: 200, contentType: "text/plain", body: "1158201444" });
  });

  it("refuses another token or none with a 403, and says so without the token", () => {
    const refused = answer({ ...sample, "hub.verify_token": "meatyhamhoc" });
    expect(refused).toMatchObject({ kind: "refused", status: 403, code: "handshake_mismatch" });
    expect(JSON.stringify(refused)).not.toContain("meatyhamho");
    const { "hub.verify_token": _, ...withoutToken } = sample;
    expect(answer(withoutToken)).toMatchObject({ status: 403, code: "handshake_mismatch" });
  });

  it("refuses a missing or unprintable challenge with a 400, only once the token matched", () => {
    const { "hub.challenge": _, ...withoutChallenge } = sample;
    expect(answer(withoutChallenge)).toMatchObject({ status: 400, code: "handshake_malformed" });
    expect(answer({ ...sample, "hub.challenge": "<script>x</script> " })).toMatchObject({ status: 400 });
    expect(answer({ ...sample, "hub.challenge": "x".repeat(257) })).toMatchObject({ status: 400 });
    expect(answer({ ...sample, "hub.challenge": ["1", "2"] })).toMatchObject({ status: 400 });
    expect(answer({ ...withoutChallenge, "hub.verify_token": "wrong" })).toMatchObject({ status: 403 });
  });

  it("is not a handshake on another method or without hub.mode=subscribe", () => {
    expect(answer(sample, "POST")).toEqual({ kind: "not_handshake" });
    expect(answer({ ...sample, "hub.mode": "unsubscribe" })).toEqual({ kind: "not_handshake" });
    const { "hub.mode": _, ...withoutMode } = sample;
    expect(answer(withoutMode)).toEqual({ kind: "not_handshake" });
    expect(answerHandshake(undefined, hookRequest({ method: "GET", query: sample }), secrets)).toEqual({
      kind: "not_handshake",
    });
  });

  it("answers 503 when the connection has no verify token set", () => {
    const request = hookRequest({ method: "GET", query: sample });
    expect(answerHandshake(meta, request, secretsOf({}))).toMatchObject({
      status: 503,
      code: "handshake_unconfigured",
    });
  });
});

describe("LinkedIn's challenge (hmac-challenge)", () => {
  // https://learn.microsoft.com/en-us/linkedin/shared/api-guide/webhook-validation: GET ?challengeCode=<uuid>, answered
  // {"challengeCode", "challengeResponse": hex(HMAC-SHA256(challengeCode, clientSecret))} as JSON. The page's
  // example challengeCode is used; its clientSecret is not published, so the response is computed with Node's crypto.
  const linkedin: HandshakeDeclaration = handshakeDeclarationSchema.parse({
    type: "hmac-challenge",
    method: "GET",
    param: "challengeCode",
    secret: "clientSecret",
    algorithm: "sha256",
    encoding: "hex",
    answer: "json",
  });
  const secrets = secretsOf({ clientSecret: "WPL_AP1.client.secret" });
  const code = "890e4665-4dfe-4ab1-b689-ed553bceeed0";
  const answer = (query: Record<string, string | string[]>, method = "GET") =>
    answerHandshake(linkedin, hookRequest({ method, query }), secrets);

  it("answers the documented challengeCode with its HMAC, as application/json", () => {
    const outcome = answer({ challengeCode: code });
    expect(outcome).toMatchObject({ kind: "answer", status: 200, contentType: "application/json" });
    const expected = createHmac("sha256", "WPL_AP1.client.secret").update(code).digest("hex");
    expect(outcome.kind === "answer" ? JSON.parse(outcome.body) : undefined).toEqual({
      challengeCode: code,
      challengeResponse: expected,
    });
  });

  it("refuses a challenge that is not a UUID, so the URL never signs a chosen notification (D-289)", () => {
    // X-LI-Signature is the same HMAC over "hmacsha256=" + body: answering this would forge a notification.
    expect(answer({ challengeCode: 'hmacsha256={"type":"LEAD_ACTION"}' })).toMatchObject({
      status: 400,
      code: "handshake_malformed",
    });
    expect(answer({ challengeCode: [code, code] })).toMatchObject({ status: 400 });
  });

  it("is not a handshake without challengeCode or on POST; 503 without the client secret", () => {
    expect(answer({})).toEqual({ kind: "not_handshake" });
    expect(answer({ challengeCode: code }, "POST")).toEqual({ kind: "not_handshake" });
    const request = hookRequest({ method: "GET", query: { challengeCode: code } });
    expect(answerHandshake(linkedin, request, secretsOf({}))).toMatchObject({ status: 503 });
  });
});

describe("the handshake declaration's schema", () => {
  it("refuses an unknown kind, another method, and unknown keys", () => {
    const base = { type: "echo", method: "GET", when: {}, token: { param: "t", secret: "s" }, echo: "c" };
    expect(handshakeDeclarationSchema.safeParse(base).success).toBe(true);
    expect(handshakeDeclarationSchema.safeParse({ ...base, type: "ping" }).success).toBe(false);
    expect(handshakeDeclarationSchema.safeParse({ ...base, method: "POST" }).success).toBe(false);
    expect(handshakeDeclarationSchema.safeParse({ ...base, answer: "xml" }).success).toBe(false);
    expect(handshakeDeclarationSchema.safeParse({ ...base, reply: "json" }).success).toBe(false);
  });
});

describe("Yelp's verification request (echo without a token, answered as JSON)", () => {
  // https://docs.developer.yelp.com/docs/webhooks, "Verifying your endpoint": GET ?verification=<alphanumeric>,
  // answered 200 with {"verification": <the same value>}.
  const yelp: HandshakeDeclaration = handshakeDeclarationSchema.parse({
    type: "echo",
    method: "GET",
    when: {},
    echo: "verification",
    answer: "json",
  });
  const answer = (query: Record<string, string | string[]>) =>
    answerHandshake(yelp, hookRequest({ method: "GET", query, rawBody: Buffer.alloc(0) }), secretsOf({}));

  it("echoes the verification value as JSON", () => {
    expect(answer({ verification: "a1B2c3" })).toEqual({
      kind: "answer",
      status: 200,
      contentType: "application/json",
      body: '{"verification":"a1B2c3"}',
    });
  });

  it("is not a handshake without the parameter, and refuses an unprintable value (positive control above)", () => {
    expect(answer({})).toEqual({ kind: "not_handshake" });
    expect(answer({ verification: "<script>\n" })).toMatchObject({ kind: "refused", status: 400 });
  });
});
