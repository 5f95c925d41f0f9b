import { unauthorized } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import { constantTimeEqual, digestToken, newToken } from "../security/tokens.js";

/** Who is calling the owner API. */
export interface OwnerPrincipal {
  ownerId: string;
  companyId: string;
  role: "admin" | "viewer";
  email: string;
  tokenId: string;
  kind: "session" | "token";
  /** CSRF token of a cookie session; mutations through a session must echo it. */
  csrf: string | null;
}

/** A session's absolute limit; its idle limit is `settings.sessionIdleMs`. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** `last_used_at` is written at most this often per session or token (a write per request would cost every read). */
const TOUCH_EVERY_MS = 60_000;

/**
 * Signs an owner in with email and password; returns a session token (for the cookie) and its CSRF token. The caller
 * has already let the request through its rate limits: the hash is the expensive part (ctx.passwords, a couple at a
 * time). A password hashed at a lower cost than the current one is hashed again now that it is known.
 */
export async function signInOwner({ ctx, input }: { ctx: GatewayContext; input: { email: string; password: string } }) {
  const owner = await ctx.tenants.ownerByEmail(input.email.trim().toLowerCase());
  // An unknown owner costs the same hash, so timing does not reveal which emails exist.
  const check = await ctx.passwords.verify(input.password, owner?.passwordHash);
  if (!owner || !check.ok) throw unauthorized("email or password is incorrect");
  if (check.outdated) {
    const passwordHash = await ctx.passwords.hash(input.password);
    // Only if unchanged meanwhile (a config file applied a new password during this sign-in).
    await ctx.tenants.rehashPassword(owner.id, owner.passwordHash, passwordHash);
  }
  const token = newToken("pgs");
  const csrf = newToken("csrf");
  const now = ctx.now();
  await ctx.tenants.insertToken({
    id: newId("ses"),
    ownerId: owner.id,
    kind: "session",
    tokenDigest: digestToken(token),
    csrf,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    lastUsedAt: now.toISOString(),
  });
  return { token, csrf, owner: { id: owner.id, email: owner.email, name: owner.name, role: owner.role } };
}

/**
 * Resolves a session or bearer token to its owner; unknown, expired and revoked tokens are 401, and so is a session
 * idle for longer than `settings.sessionIdleMs` (bearer tokens have no idle limit: automation may run once a month).
 */
export async function authenticateOwner({
  ctx,
  token,
}: {
  ctx: GatewayContext;
  token: string;
}): Promise<OwnerPrincipal> {
  const digest = digestToken(token);
  const row = await ctx.tenants.tokenWithOwner(digest);
  if (!row || !constantTimeEqual(row.token.tokenDigest, digest)) throw unauthorized("missing or invalid owner session");
  if (row.token.revokedAt) throw unauthorized("owner session revoked");
  const now = ctx.now().getTime();
  if (row.token.expiresAt && Date.parse(row.token.expiresAt) <= now) throw unauthorized("owner session expired");
  const lastUsed = Date.parse(row.token.lastUsedAt ?? row.token.createdAt);
  if (row.token.kind === "session" && now - lastUsed >= ctx.settings.sessionIdleMs) {
    throw unauthorized("owner session expired after inactivity");
  }
  if (row.token.lastUsedAt === null || now - lastUsed >= TOUCH_EVERY_MS) {
    await ctx.tenants.touchToken(row.token.id, new Date(now).toISOString());
  }
  return {
    ownerId: row.owner.id,
    companyId: row.owner.companyId,
    role: row.owner.role,
    email: row.owner.email,
    tokenId: row.token.id,
    kind: row.token.kind,
    csrf: row.token.csrf,
  };
}
