import { createHmac } from "node:crypto";
import { sameSecret } from "./constant-time.js";
import type { EchoHandshake, HandshakeDeclaration, HmacChallengeHandshake } from "./handshake-declaration.js";
import { type HookRequest, readQuery } from "./request.js";

export type HandshakeRefusalCode = "handshake_malformed" | "handshake_mismatch" | "handshake_unconfigured";

export type HandshakeOutcome =
  /** Not a handshake: the route goes on to the proof and the body. */
  | { kind: "not_handshake" }
  | { kind: "answer"; status: 200; contentType: "text/plain" | "application/json"; body: string }
  | { kind: "refused"; status: 400 | 403 | 503; code: HandshakeRefusalCode; reason: string };

/** D-289: what is echoed is bounded: visible ASCII, at most 256 characters (Meta's is an integer). */
const ECHOED = /^[\x21-\x7e]{1,256}$/;
/** D-289: LinkedIn documents a type-4 UUID; anything else is refused, so this URL is never a signing oracle. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const refused = (status: 400 | 403 | 503, code: HandshakeRefusalCode, reason: string): HandshakeOutcome => ({
  kind: "refused",
  status,
  code,
  reason,
});

function answerEcho(
  handshake: EchoHandshake,
  request: HookRequest,
  secrets: ReadonlyMap<string, string>,
): HandshakeOutcome {
  const isHandshake = Object.entries(handshake.when).every(([name, value]) => readQuery(request.query, name) === value);
  if (!isHandshake) return { kind: "not_handshake" };
  const challenge = readQuery(request.query, handshake.echo);
  // Without a token to mark it, a request is a handshake only by the parameter it wants echoed.
  if (!handshake.token && challenge === undefined) return { kind: "not_handshake" };
  if (handshake.token) {
    const secret = secrets.get(handshake.token.secret);
    if (!secret) return refused(503, "handshake_unconfigured", `the secret ${handshake.token.secret} is not set`);
    // The token first: a caller without it learns nothing, not even whether its challenge would have been accepted.
    const token = readQuery(request.query, handshake.token.param);
    if (token === undefined || token === "repeated" || !sameSecret(token, secret)) {
      return refused(403, "handshake_mismatch", `${handshake.token.param} does not match`);
    }
  }
  if (challenge === undefined || challenge === "repeated" || !ECHOED.test(challenge)) {
    return refused(400, "handshake_malformed", `${handshake.echo} is absent or not a plain token`);
  }
  if (handshake.answer === "json") {
    return {
      kind: "answer",
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({ [handshake.echo]: challenge }),
    };
  }
  return { kind: "answer", status: 200, contentType: "text/plain", body: challenge };
}

function answerChallenge(
  handshake: HmacChallengeHandshake,
  request: HookRequest,
  secrets: ReadonlyMap<string, string>,
): HandshakeOutcome {
  const challenge = readQuery(request.query, handshake.param);
  if (challenge === undefined || challenge === "") return { kind: "not_handshake" };
  if (challenge === "repeated" || !UUID.test(challenge)) {
    return refused(400, "handshake_malformed", `${handshake.param} is not a UUID`);
  }
  const secret = secrets.get(handshake.secret);
  if (!secret) return refused(503, "handshake_unconfigured", `the secret ${handshake.secret} is not set`);
  const response = createHmac(handshake.algorithm, secret).update(challenge, "utf8").digest(handshake.encoding);
  const body = JSON.stringify({ [handshake.param]: challenge, challengeResponse: response });
  return { kind: "answer", status: 200, contentType: "application/json", body };
}

/**
 * The answer to a vendor's URL-verification request, or `not_handshake` when the request is not one (another method,
 * or its marking parameters absent). Asked before the proof: a handshake carries no body and no signature.
 */
export function answerHandshake(
  declaration: HandshakeDeclaration | undefined,
  request: HookRequest,
  secrets: ReadonlyMap<string, string>,
): HandshakeOutcome {
  if (declaration === undefined || request.method.toUpperCase() !== declaration.method)
    return { kind: "not_handshake" };
  return declaration.type === "echo"
    ? answerEcho(declaration, request, secrets)
    : answerChallenge(declaration, request, secrets);
}
