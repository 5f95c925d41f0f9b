import { createHmac } from "node:crypto";
import fc from "fast-check";
import type { ProofDeclarationInput } from "../../../../src/gateway/connections/proofs/index.js";

/**
 * Generators for the property tests: HMAC declarations built from their parts, and the request a vendor following
 * the declaration would send. The signer here renders the parts itself; it never reads the template string the code
 * under test parses, so the two are independent.
 */
export type Part = { literal: string } | { field: "body" | "timestamp" | "method" | "url" | "path" | "query" };

export interface SignedCase {
  input: ProofDeclarationInput;
  secret: string;
  method: string;
  path: string;
  query: string;
  body: Buffer;
  now: number;
  /** The timestamp text as sent, when the declaration has one. */
  stamp: string | undefined;
  /** Signatures made with other secrets, sent alongside the good one (a vendor's rotation). */
  decoys: string[];
  goodFirst: boolean;
}

const literal = fc.string({ unit: "binary", maxLength: 6 }).filter((text) => !/[{}]/.test(text));
const urlSafe = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/);
const queryText = fc.stringMatching(/^[A-Za-z0-9._~%=&+-]{0,16}$/);

const parts = (withTimestamp: boolean): fc.Arbitrary<Part[]> =>
  fc
    .array(
      fc.oneof(
        literal.map((text) => ({ literal: text })),
        fc.constantFrom("method", "url", "path", "query").map((field) => ({ field }) as Part),
        ...(withTimestamp ? [fc.constant({ field: "timestamp" } as Part)] : []),
      ),
      { maxLength: 4 },
    )
    .chain((others) =>
      fc.nat(others.length).map((at) => [...others.slice(0, at), { field: "body" } as Part, ...others.slice(at)]),
    );

export const templateOf = (template: Part[]): string =>
  template.map((part) => ("literal" in part ? part.literal : `{${part.field}}`)).join("");

export const signedCase: fc.Arbitrary<SignedCase> = fc
  .record({
    algorithm: fc.constantFrom("sha256" as const, "sha1" as const),
    encoding: fc.constantFrom("hex" as const, "base64" as const),
    prefix: fc.option(fc.constantFrom("sha256=", "v0=", "Bearer "), { nil: undefined }),
    structured: fc.boolean(),
    timestamp: fc.option(
      fc.record({
        own: fc.boolean(),
        unit: fc.constantFrom("s" as const, "ms" as const),
        tolerance: fc.integer({ min: 1, max: 3600 }),
        skew: fc.double({ min: -1, max: 1, noNaN: true }),
      }),
      { nil: undefined },
    ),
  })
  .chain((shape) =>
    fc.record({
      shape: fc.constant(shape),
      template: parts(shape.timestamp !== undefined),
      secret: fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
      method: fc.constantFrom("POST", "PUT", "GET"),
      path: urlSafe,
      query: queryText,
      body: fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
      now: fc.integer({ min: 1_000_000_000_000, max: 4_000_000_000_000 }),
      decoys: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 3 }),
      goodFirst: fc.boolean(),
    }),
  )
  .map(({ shape, template, secret, method, path, query, body, now, decoys, goodFirst }) => {
    const stampSource = shape.timestamp && {
      ...(shape.timestamp.own || !shape.structured ? { header: "X-Stamp" } : {}),
      ...(shape.timestamp.own || !shape.structured ? {} : { element: "t" }),
      unit: shape.timestamp.unit,
      toleranceSeconds: shape.timestamp.tolerance,
    };
    // Strictly inside the window: whole seconds of skew, one short of the tolerance (the clock's fraction is the rest).
    const offsetSeconds = Math.trunc((shape.timestamp?.skew ?? 0) * ((shape.timestamp?.tolerance ?? 1) - 1));
    const stampNumber =
      shape.timestamp?.unit === "ms" ? now + offsetSeconds * 1000 : Math.floor(now / 1000) + offsetSeconds;
    const input: ProofDeclarationInput = {
      type: "hmac",
      algorithm: shape.algorithm,
      secret: "vendorSecret",
      signature: {
        header: "X-Vendor-Signature",
        encoding: shape.encoding,
        ...(shape.prefix ? { prefix: shape.prefix } : {}),
        ...(shape.structured ? { element: "v1" } : {}),
      },
      signed: templateOf(template),
      ...(stampSource ? { timestamp: stampSource } : {}),
    };
    return {
      input,
      secret,
      method,
      path: `/hooks/${path}`,
      query,
      body,
      now,
      stamp: shape.timestamp ? String(stampNumber) : undefined,
      decoys,
      goodFirst,
      template,
    } as SignedCase & { template: Part[] };
  });

export const urlOf = (c: SignedCase): string => `https://gateway.example.com${c.path}${c.query ? `?${c.query}` : ""}`;

/** The headers a vendor following `c.input` sends, signing `c.body` with `secret`. */
export function signedHeaders(c: SignedCase & { template?: Part[] }, body: Buffer): Record<string, string> {
  if (c.input.type !== "hmac" || !c.template) throw new Error("an HMAC case");
  const { signature, algorithm } = c.input;
  const digest = (secret: string) => {
    const mac = createHmac(algorithm, secret);
    const url = urlOf(c);
    const fields = { timestamp: c.stamp ?? "", method: c.method, url, path: c.path, query: c.query };
    for (const part of c.template ?? []) {
      if ("literal" in part) mac.update(part.literal, "utf8");
      else if (part.field === "body") mac.update(body);
      else mac.update(fields[part.field], "utf8");
    }
    return `${signature.prefix ?? ""}${mac.digest(signature.encoding)}`;
  };
  const good = digest(c.secret);
  const decoys = c.decoys.map(digest);
  const all = c.goodFirst ? [good, ...decoys] : [...decoys, good];
  const headers: Record<string, string> = {};
  const stamp = c.input.timestamp;
  if (signature.element) {
    const t = stamp?.element ? `t=${c.stamp},` : "";
    headers["x-vendor-signature"] = t + all.map((value) => `v1=${value}`).join(",");
  } else {
    headers["x-vendor-signature"] = all.join(",");
  }
  if (stamp?.header) headers["x-stamp"] = c.stamp ?? "";
  return headers;
}
