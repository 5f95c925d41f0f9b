import { randomBytes } from "node:crypto";

/**
 * §5.7: the sandbox's owner logins. A seeded company's owner password is a fixed, documented test fixture (like the
 * seed's `svc_test_` keys), derived from the company id so a seed needs no extra field: `test_owner_<companyId>`.
 */
export function seedOwnerPassword(companyId: string): string {
  return `test_owner_${companyId}`;
}

/** An admin-made company's owner password: random, shown once. */
export function newOwnerPassword(): string {
  return `test_owner_${randomBytes(18).toString("base64url")}`;
}

/** Session tokens: 256 random bits behind a recognisable prefix. */
export function newSessionToken(): string {
  return `sess_${randomBytes(32).toString("base64url")}`;
}

/** §5.7 sessions last a working day; a new login gives a new one. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** The cookie `POST /partner-api/session` sets; `Authorization: Bearer <token>` works the same. */
export const SESSION_COOKIE = "svc_owner_session";
