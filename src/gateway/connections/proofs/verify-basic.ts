import { sameSecret } from "./constant-time.js";
import type { BasicProof } from "./declaration.js";
import { ACCEPTED, type ProofResult, refuse } from "./refusal.js";
import { type HookRequest, readHeader } from "./request.js";

/** RFC 7617 §2: `Basic` (any case), then the base64 of `user-id:password`. */
const BASIC = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
const utf8 = new TextDecoder("utf-8", { fatal: true });

function credentials(header: string): { username: string; password: string } | undefined {
  const token = BASIC.exec(header)?.[1];
  if (token === undefined) return undefined;
  let text: string;
  try {
    text = utf8.decode(Buffer.from(token, "base64"));
  } catch {
    return undefined;
  }
  const colon = text.indexOf(":");
  return colon < 0 ? undefined : { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** HTTP Basic with a user name and a password the owner set on the vendor's side; both compared, always. */
export function verifyBasic(
  proof: BasicProof,
  request: HookRequest,
  secrets: ReadonlyMap<string, string>,
): ProofResult {
  const username = secrets.get(proof.username);
  const password = secrets.get(proof.password);
  if (!username || !password) return refuse("proof_unconfigured", "the Basic user name or password is not set");
  const header = readHeader(request.headers, "authorization")?.trim();
  if (!header) return refuse("proof_missing", "Authorization is absent");
  const presented = credentials(header);
  if (presented === undefined) return refuse("proof_malformed", "Authorization is not Basic credentials");
  // Both comparisons run whatever the first gives, so the answer's timing does not say which one failed.
  const sameUser = sameSecret(presented.username, username);
  const samePassword = sameSecret(presented.password, password);
  return sameUser && samePassword ? ACCEPTED : refuse("proof_mismatch", "the Basic credentials do not match");
}
