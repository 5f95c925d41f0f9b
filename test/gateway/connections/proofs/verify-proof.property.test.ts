import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  answerDeclarationSchema,
  answerHandshake,
  handshakeDeclarationSchema,
  PROOF_REFUSAL_CODES,
  PROOF_REFUSAL_STATUS,
  type ProofDeclarationInput,
  type ProofResult,
  proofDeclarationSchema,
  renderAnswer,
  verifyProof,
} from "../../../../src/gateway/connections/proofs/index.js";
import { hookRequest, withByteChanged } from "./hook-request.js";
import { type SignedCase, signedCase, signedHeaders, urlOf } from "./proof-properties.js";

/**
 * docs/connections.md, "Proofs and handshakes", as properties (the style of test/gateway/hostile-input.property.test.ts):
 * whatever arrives, `verifyProof` answers with a known code and never throws; a vendor following its declaration is
 * always accepted; one byte changed anywhere in the body is always refused. `FUZZ_RUNS` raises the count.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

const known = (result: ProofResult): boolean =>
  result.ok ||
  (PROOF_REFUSAL_CODES.includes(result.code) &&
    result.status === PROOF_REFUSAL_STATUS[result.code] &&
    typeof result.reason === "string");

const caseRequest = (c: SignedCase, body: Buffer, headers: Record<string, string>) =>
  hookRequest({ method: c.method, url: urlOf(c), headers, rawBody: body });
const secretsFor = (c: SignedCase) => new Map([["vendorSecret", c.secret]]);

describe("a vendor following its declaration", () => {
  it(`is accepted: ${RUNS} HMAC declarations (algorithm, encoding, prefix, elements, templates, timestamps)`, () => {
    fc.assert(
      fc.property(signedCase, (c) => {
        const declaration = proofDeclarationSchema.parse(c.input);
        const result = verifyProof(declaration, caseRequest(c, c.body, signedHeaders(c, c.body)), secretsFor(c), c.now);
        expect(result).toEqual({ ok: true });
      }),
      { numRuns: RUNS },
    );
  });

  it(`is refused once any single byte of the body changes: ${RUNS} runs`, () => {
    fc.assert(
      fc.property(signedCase, fc.nat(), (c, at) => {
        const declaration = proofDeclarationSchema.parse(c.input);
        const headers = signedHeaders(c, c.body);
        const changed = withByteChanged(c.body, at % c.body.length);
        const result = verifyProof(declaration, caseRequest(c, changed, headers), secretsFor(c), c.now);
        expect(result).toMatchObject({ ok: false, code: "proof_mismatch", status: 401 });
      }),
      { numRuns: RUNS },
    );
  });
});

/** Any declaration the schema accepts: the HMAC ones above, and every other kind with names that may collide. */
const anyDeclaration: fc.Arbitrary<ProofDeclarationInput> = fc.oneof(
  signedCase.map((c) => c.input),
  fc.constant({ type: "none" as const }),
  fc
    .record({ username: fc.constantFrom("u", "constructor"), password: fc.constantFrom("p", "toString") })
    .map((names) => ({ type: "basic" as const, ...names })),
  fc
    .record({
      in: fc.constantFrom("header" as const, "query" as const, "body" as const),
      name: fc.constantFrom("x-vendor-signature", "authorization", "key", "a.b.0", "__proto__", "constructor"),
      prefix: fc.option(fc.constantFrom("Bearer ", "sha256="), { nil: undefined }),
    })
    .map(({ prefix, ...where }) => ({
      type: "secret" as const,
      secret: "vendorSecret",
      ...where,
      ...(prefix ? { prefix } : {}),
    })),
);

const text = fc.string({ unit: "binary", maxLength: 120 });
/** Header values near the real shapes as well as noise: prefixes, elements, hex and base64 runs, Basic credentials. */
const headerValue = fc.oneof(
  text,
  fc
    .tuple(
      fc.constantFrom("", "sha256=", "sha1=", "v0=", "Bearer ", "Basic ", "t=1,v1=", "v1="),
      fc.oneof(text, fc.stringMatching(/^[0-9a-fA-F]{0,80}$/), fc.base64String({ maxLength: 60 })),
    )
    .map(([prefix, rest]) => prefix + rest),
);
const headerName = fc.constantFrom(
  "X-Vendor-Signature",
  "x-vendor-signature",
  "x-stamp",
  "authorization",
  "key",
  "constructor",
  "__proto__",
);
const headers = fc.dictionary(headerName, fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })), {
  maxKeys: 5,
});
const query = fc.dictionary(
  fc.constantFrom("key", "constructor", "hub.mode", "challengeCode", "hub.verify_token", "hub.challenge"),
  fc.oneof(text, fc.array(text, { maxLength: 3 })),
  { maxKeys: 4 },
);
const secrets = fc.dictionary(fc.constantFrom("vendorSecret", "u", "p", "constructor", "toString"), text, {
  maxKeys: 5,
});

describe("whatever arrives", () => {
  it(`verifyProof never throws and always answers with a known code: ${RUNS * 4} arbitrary requests`, () => {
    fc.assert(
      fc.property(
        anyDeclaration,
        headers,
        query,
        fc.uint8Array({ maxLength: 400 }),
        fc.option(fc.jsonValue({ maxDepth: 4 }), { nil: undefined }),
        secrets,
        fc.oneof(fc.integer(), fc.double()),
        (input, headerSource, querySource, bytes, body, secretEntries, now) => {
          const declaration = proofDeclarationSchema.parse(input);
          const request = hookRequest({ headers: headerSource, query: querySource, rawBody: Buffer.from(bytes), body });
          const result = verifyProof(declaration, request, new Map(Object.entries(secretEntries)), now);
          expect(known(result), JSON.stringify(result)).toBe(true);
        },
      ),
      { numRuns: RUNS * 4 },
    );
  });

  it(`answerHandshake never throws and answers only what it was asked: ${RUNS} arbitrary queries`, () => {
    const meta = handshakeDeclarationSchema.parse({
      type: "echo",
      method: "GET",
      when: { "hub.mode": "subscribe" },
      token: { param: "hub.verify_token", secret: "vendorSecret" },
      echo: "hub.challenge",
    });
    const linkedin = handshakeDeclarationSchema.parse({
      type: "hmac-challenge",
      method: "GET",
      param: "challengeCode",
      secret: "vendorSecret",
      algorithm: "sha256",
      encoding: "hex",
      answer: "json",
    });
    fc.assert(
      fc.property(fc.constantFrom(meta, linkedin), query, secrets, (declaration, querySource, secretEntries) => {
        const request = hookRequest({ method: "GET", query: querySource });
        const outcome = answerHandshake(declaration, request, new Map(Object.entries(secretEntries)));
        expect(["not_handshake", "answer", "refused"]).toContain(outcome.kind);
        if (outcome.kind === "answer" && declaration.type === "echo") {
          expect(outcome.body).toBe(querySource["hub.challenge"]);
          expect(querySource["hub.verify_token"]).toBe(secretEntries.vendorSecret);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it(`renderAnswer keeps any value inside its JSON string or XML text: ${RUNS} arbitrary values`, () => {
    const json = answerDeclarationSchema.parse({ contentType: "application/json", body: '{"v":"{{v}}"}' });
    const xml = answerDeclarationSchema.parse({ contentType: "application/xml", body: "<r>{{v}}</r>" });
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (v) => {
        expect(JSON.parse(renderAnswer(json, { v }).body)).toEqual({ v });
        const inner = renderAnswer(xml, { v }).body.slice(3, -4);
        expect(inner).not.toMatch(/[<>"']/);
        expect(inner.replace(/&(amp|lt|gt|quot|apos);/g, "")).not.toContain("&");
      }),
      { numRuns: RUNS },
    );
  });
});
