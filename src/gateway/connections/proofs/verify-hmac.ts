import { createHmac } from "node:crypto";
import { anyDigestMatches } from "./constant-time.js";
import type { HmacProof } from "./declaration.js";
import { ACCEPTED, type ProofResult, refuse } from "./refusal.js";
import { type HookRequest, readHeader, urlParts } from "./request.js";
import { parseElements, presentedSignatures } from "./signature-header.js";
import { parseSignedTemplate, type SignedPart } from "./signed-template.js";

const DIGEST_LENGTH = { sha256: 32, sha1: 20 } as const;
const TIMESTAMP = /^[0-9]{1,15}$/;

type Timestamp = { text: string } | { missing: string } | { malformed: string };

/** The timestamp text exactly as sent: a header of its own, an element of one, or an element of the signature header. */
function readTimestamp(stamp: NonNullable<HmacProof["timestamp"]>, proof: HmacProof, request: HookRequest): Timestamp {
  const headerName = stamp.header ?? proof.signature.header;
  const value = readHeader(request.headers, headerName)?.trim();
  if (!value) return { missing: `${headerName} is absent` };
  let text = value;
  if (stamp.element !== undefined) {
    const found = (parseElements(value) ?? []).filter(([key]) => key === stamp.element);
    if (found.length === 0) return { missing: `${headerName} has no ${stamp.element} element` };
    if (found.length > 1) return { malformed: `${headerName} has ${stamp.element} twice` };
    text = found[0]?.[1] ?? "";
  }
  return TIMESTAMP.test(text) ? { text } : { malformed: `the timestamp in ${headerName} is not a number` };
}

/** The HMAC over the declared signed string, feeding the body's bytes as they are (never decoded, never re-encoded). */
function expectedDigest(
  proof: HmacProof,
  parts: SignedPart[],
  secret: string,
  request: HookRequest,
  stamp: string,
): Buffer {
  const hmac = createHmac(proof.algorithm, secret);
  // The URL's parts only when the template signs one of them (most sign the body alone, D-365).
  let url: { path: string; query: string } | undefined;
  for (const part of parts) {
    if ("literal" in part) hmac.update(part.literal, "utf8");
    else if (part.field === "body") hmac.update(request.rawBody);
    else if (part.field === "timestamp") hmac.update(stamp, "utf8");
    else if (part.field === "method") hmac.update(request.method, "utf8");
    else if (part.field === "url") hmac.update(request.url, "utf8");
    else {
      url ??= urlParts(request.url);
      hmac.update(url[part.field], "utf8");
    }
  }
  return hmac.digest();
}

/**
 * Templates parsed once per declaration (D-365): a connection's declarations are kept with its opened secrets
 * (resolved-connection.ts), so its proof is the same object request after request. Weakly held: a connection's new
 * row (rotated, revoked, other settings) makes new declarations, and the old ones go with it.
 */
const templates = new WeakMap<HmacProof, { signed: string; parts: SignedPart[] | undefined }>();

function signedParts(proof: HmacProof): SignedPart[] | undefined {
  const known = templates.get(proof);
  if (known?.signed === proof.signed) return known.parts;
  const parts = parseSignedTemplate(proof.signed);
  templates.set(proof, { signed: proof.signed, parts });
  return parts;
}

/**
 * An HMAC proof, in the order of §6.3.2 for our own webhooks: read the inputs the HMAC needs, compare in constant
 * time, and only for an authentic request look at the clock (D-287): forged traffic learns nothing of the window.
 */
export function verifyHmac(
  proof: HmacProof,
  request: HookRequest,
  secrets: ReadonlyMap<string, string>,
  now: number,
): ProofResult {
  const secret = secrets.get(proof.secret);
  if (!secret) return refuse("proof_unconfigured", `the secret ${proof.secret} is not set`);
  const parts = signedParts(proof);
  if (parts === undefined) return refuse("proof_unconfigured", "the signed template is not valid");

  const header = readHeader(request.headers, proof.signature.header)?.trim();
  if (!header) return refuse("proof_missing", `${proof.signature.header} is absent`);
  const presented = presentedSignatures(header, proof.signature, DIGEST_LENGTH[proof.algorithm]);
  if (presented.kind === "missing") return refuse("proof_missing", presented.what);
  if (presented.kind === "malformed") return refuse("proof_malformed", presented.what);

  const stamp = proof.timestamp ? readTimestamp(proof.timestamp, proof, request) : { text: "" };
  if ("missing" in stamp) return refuse("proof_missing", stamp.missing);
  if ("malformed" in stamp) return refuse("proof_malformed", stamp.malformed);

  const expected = expectedDigest(proof, parts, secret, request, stamp.text);
  if (!anyDigestMatches(presented.digests, expected)) return refuse("proof_mismatch", "no signature matches");
  return withinTolerance(proof, stamp.text, now);
}

function withinTolerance(proof: HmacProof, stamp: string, now: number): ProofResult {
  if (!proof.timestamp) return ACCEPTED;
  const seconds = proof.timestamp.unit === "ms" ? Number(stamp) / 1000 : Number(stamp);
  // Both directions: a stamp from the future is as suspect as an old one (D-287, as D-006 for our own webhooks).
  // Written as "not within" so that a clock that is not a number refuses rather than accepts.
  if (!(Math.abs(now / 1000 - seconds) <= proof.timestamp.toleranceSeconds)) {
    return refuse("proof_stale", `the timestamp is outside ${proof.timestamp.toleranceSeconds} s`);
  }
  return ACCEPTED;
}
