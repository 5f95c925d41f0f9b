import type { ProofDeclaration } from "./declaration.js";
import { ACCEPTED, type ProofResult } from "./refusal.js";
import type { HookRequest } from "./request.js";
import { verifyBasic } from "./verify-basic.js";
import { verifyHmac } from "./verify-hmac.js";
import { verifySecret } from "./verify-secret.js";

/**
 * Whether a vendor's request carries the proof its connection declares. Never throws: whatever the request, the
 * answer is a result with a code from `PROOF_REFUSAL_CODES` (test/gateway/connections/proofs, property tests).
 *
 * D-285, the order at the hook route: every proof but `secret in body` is verified on `rawBody` BEFORE the body is
 * parsed, so nothing unauthenticated reaches a parser; `secret in body` by nature needs the parsed tree, so for that
 * kind alone the route parses first (within the body limits) and passes `body`.
 *
 * @param secrets the connection's secrets by name, unsealed by the caller
 * @param now milliseconds since the epoch, like `Date.now()`
 */
export function verifyProof(
  declaration: ProofDeclaration,
  request: HookRequest,
  secrets: ReadonlyMap<string, string>,
  now: number,
): ProofResult {
  switch (declaration.type) {
    case "none":
      // The hook URL's unguessable token, already checked by the route, is the only proof.
      return ACCEPTED;
    case "hmac":
      return verifyHmac(declaration, request, secrets, now);
    case "secret":
      return verifySecret(declaration, request, secrets);
    case "basic":
      return verifyBasic(declaration, request, secrets);
  }
}

/** Whether the route must parse the body before `verifyProof` (only `secret in body`, D-285). */
export function proofNeedsParsedBody(declaration: ProofDeclaration): boolean {
  return declaration.type === "secret" && declaration.in === "body";
}
