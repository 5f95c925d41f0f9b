import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * §5.1–5.2: `x-api-key: <keyId>.<secret>`, test keys start with `svc_test_`, live keys with `svc_live_`.
 * The key id is the public half (looked up); the secret is high-entropy, so a fast digest is the right store (a
 * password hash would add nothing but latency) and comparison is constant-time.
 */
export type KeyEnvironment = "test" | "live";

const KEY_PATTERN = /^(svc_(test|live)_[A-Za-z0-9]{8,64})\.([A-Za-z0-9_-]{16,128})$/;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export interface ParsedKey {
  keyId: string;
  environment: KeyEnvironment;
  secret: string;
}

export function parseApiKey(value: string | undefined): ParsedKey | undefined {
  if (!value) return undefined;
  const match = KEY_PATTERN.exec(value);
  if (!match) return undefined;
  const [, keyId, environment, secret] = match;
  if (!keyId || !secret) return undefined;
  return { keyId, environment: environment as KeyEnvironment, secret };
}

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  // 36 does not divide 256: the bias (<1 bit over a 32-char secret) does not matter for an unguessable token.
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

export function newKeyId(environment: KeyEnvironment): string {
  return `svc_${environment}_${randomToken(16)}`;
}

export function newKeySecret(): string {
  return randomBytes(32).toString("base64url");
}

export function formatApiKey(keyId: string, secret: string): string {
  return `${keyId}.${secret}`;
}

/** SHA-256 of the secret, hex. */
export function digestSecret(secret: string): string {
  // The one-shot hash: a third of createHash()'s cost, and this runs on every authenticated request.
  return hash("sha256", secret, "hex");
}

/** Constant-time comparison of a presented secret with a stored digest (as hex text: the same comparison). */
export function secretMatches(secret: string, storedDigest: string): boolean {
  const presented = Buffer.from(digestSecret(secret), "latin1");
  const stored = Buffer.from(storedDigest, "latin1");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
