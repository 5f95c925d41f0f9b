import { and, eq, isNull } from "drizzle-orm";
import { owners, ownerTokens } from "../../db/schema/index.js";
import { ApiError, notFound, unauthorized } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import { verifyPassword } from "../security/passwords.js";
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

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Signs an owner in with email and password; returns a session token (for the cookie) and its CSRF token. */
export async function signInOwner({ ctx, input }: { ctx: GatewayContext; input: { email: string; password: string } }) {
  const owner = ctx.db.select().from(owners).where(eq(owners.email, input.email.trim().toLowerCase())).get();
  // Verify against a dummy hash when the owner is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(input.password, owner?.passwordHash ?? DUMMY_HASH);
  if (!owner || !ok) throw unauthorized("email or password is incorrect");
  const token = newToken("pgs");
  const csrf = newToken("csrf");
  const now = ctx.now();
  ctx.db
    .insert(ownerTokens)
    .values({
      id: newId("ses"),
      ownerId: owner.id,
      kind: "session",
      tokenDigest: digestToken(token),
      csrf,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    })
    .run();
  return { token, csrf, owner: { id: owner.id, email: owner.email, name: owner.name, role: owner.role } };
}

const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/** Creates a revocable bearer token for automation; the token is shown once. */
export function createOwnerToken({
  ctx,
  owner,
  input,
}: {
  ctx: GatewayContext;
  owner: OwnerPrincipal;
  input: { name: string };
}) {
  const token = newToken("pgt");
  const id = newId("tok");
  ctx.db
    .insert(ownerTokens)
    .values({
      id,
      ownerId: owner.ownerId,
      kind: "token",
      name: input.name,
      tokenDigest: digestToken(token),
      createdAt: ctx.now().toISOString(),
    })
    .run();
  return { id, name: input.name, token };
}

/** Revokes a session or token of the same owner; another owner's token is a 404. */
export function revokeOwnerToken({
  ctx,
  owner,
  tokenId,
}: {
  ctx: GatewayContext;
  owner: OwnerPrincipal;
  tokenId: string;
}) {
  const result = ctx.db
    .update(ownerTokens)
    .set({ revokedAt: ctx.now().toISOString() })
    .where(and(eq(ownerTokens.id, tokenId), eq(ownerTokens.ownerId, owner.ownerId), isNull(ownerTokens.revokedAt)))
    .run();
  if (result.changes === 0) throw notFound();
}

/** Resolves a session or bearer token to its owner; unknown, expired and revoked tokens are 401. */
export function authenticateOwner({ ctx, token }: { ctx: GatewayContext; token: string }): OwnerPrincipal {
  const digest = digestToken(token);
  const row = ctx.db
    .select({ token: ownerTokens, owner: owners })
    .from(ownerTokens)
    .innerJoin(owners, eq(owners.id, ownerTokens.ownerId))
    .where(eq(ownerTokens.tokenDigest, digest))
    .get();
  if (!row || !constantTimeEqual(row.token.tokenDigest, digest)) throw unauthorized("missing or invalid owner session");
  if (row.token.revokedAt) throw unauthorized("owner session revoked");
  if (row.token.expiresAt && Date.parse(row.token.expiresAt) <= ctx.now().getTime()) {
    throw unauthorized("owner session expired");
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

export function requireAdmin(owner: OwnerPrincipal): void {
  if (owner.role !== "admin") throw new ApiError("forbidden", "this action needs an admin owner account");
}
