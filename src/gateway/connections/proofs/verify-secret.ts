import { sameSecret } from "./constant-time.js";
import type { SecretProof } from "./declaration.js";
import { ACCEPTED, type ProofResult, refuse } from "./refusal.js";
import { type HookRequest, readHeader, readQuery } from "./request.js";
import { afterPrefix } from "./signature-header.js";
import { readTreePath } from "./tree-path.js";

type Presented = { value: string } | { missing: string } | { malformed: string };

function presented(proof: SecretProof, request: HookRequest): Presented {
  if (proof.in === "header") {
    const value = readHeader(request.headers, proof.name)?.trim();
    return value ? { value } : { missing: `${proof.name} is absent` };
  }
  if (proof.in === "query") {
    const value = readQuery(request.query, proof.name);
    if (value === "repeated") return { malformed: `the parameter ${proof.name} is repeated` };
    return value ? { value } : { missing: `the parameter ${proof.name} is absent` };
  }
  // D-285: the one proof read from the parsed body (Google Ads lead forms' `google_key`); the caller parses first.
  if (request.body === undefined) return { missing: "the body was not parsed" };
  const value = readTreePath(request.body, proof.name);
  if (value === undefined || value === null || value === "") return { missing: `the field ${proof.name} is absent` };
  return typeof value === "string" ? { value } : { malformed: `the field ${proof.name} is not text` };
}

/** A shared secret sent as it is: in a header (after an optional prefix), a query parameter or a body field. */
export function verifySecret(
  proof: SecretProof,
  request: HookRequest,
  secrets: ReadonlyMap<string, string>,
): ProofResult {
  const secret = secrets.get(proof.secret);
  if (!secret) return refuse("proof_unconfigured", `the secret ${proof.secret} is not set`);
  const found = presented(proof, request);
  if ("missing" in found) return refuse("proof_missing", found.missing);
  if ("malformed" in found) return refuse("proof_malformed", found.malformed);
  const value = afterPrefix(found.value, proof.prefix);
  if (value === undefined) return refuse("proof_malformed", `${proof.name} does not start with its prefix`);
  return sameSecret(value, secret) ? ACCEPTED : refuse("proof_mismatch", `${proof.name} does not match`);
}
