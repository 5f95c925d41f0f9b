import { createHash, randomBytes } from "node:crypto";

/** The prefix of every hook URL's token: says what it is when it turns up somewhere it should not. */
const PREFIX = "hk_";
/** 32 random bytes: unguessable, as a key's secret is. */
const TOKEN = /^hk_[A-Za-z0-9_-]{43}$/;

/** A new hook token (the path segment of a connection's hook URL): a credential, shown once. */
export function newHookToken(): string {
  return `${PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** Whether `token` is shaped as a hook token (anything else is not looked up). */
export function isHookToken(token: string): boolean {
  return TOKEN.test(token);
}

/** What is stored and looked up: the token's SHA-256, never the token. */
export function digestHookToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The hook URL the owner pastes into the vendor's dashboard, on the gateway's public base URL (PUBLIC_URL). */
export function hookUrl(publicUrl: string, token: string): string {
  return new URL(`/hooks/${token}`, publicUrl).toString();
}

/** A hook token as logs, metrics and the owner's lists show it: its first 14 characters (§5.9's rule for keys). */
export function maskedHookToken(token: string): string {
  return `${token.slice(0, 14)}…`;
}
