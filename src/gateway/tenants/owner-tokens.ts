import { and, desc, eq, isNull } from "drizzle-orm";
import type { GatewayDb } from "../../db/client.js";
import { ownerTokens } from "../../db/schema/index.js";
import { notFound } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import { digestToken, newToken } from "../security/tokens.js";
import type { OwnerPrincipal } from "./owner-auth.js";

const DAY_MS = 86_400_000;

/** What an owner sees of a bearer token: never the token, shown once. */
export interface OwnerTokenView {
  id: string;
  name: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/**
 * Creates a revocable bearer token for automation; the token is shown once. `expiresInDays`: it stops working then;
 * without it, it works until revoked.
 */
export function createOwnerToken({
  ctx,
  owner,
  input,
}: {
  ctx: GatewayContext;
  owner: OwnerPrincipal;
  input: { name: string; expiresInDays?: number | undefined };
}) {
  const token = newToken("pgt");
  const id = newId("tok");
  const now = ctx.now();
  const expiresAt =
    input.expiresInDays === undefined ? null : new Date(now.getTime() + input.expiresInDays * DAY_MS).toISOString();
  ctx.db
    .insert(ownerTokens)
    .values({
      id,
      ownerId: owner.ownerId,
      kind: "token",
      name: input.name,
      tokenDigest: digestToken(token),
      createdAt: now.toISOString(),
      expiresAt,
    })
    .run();
  return { id, name: input.name, token, expiresAt };
}

/** The owner's own bearer tokens not revoked (expired ones included, with their expiry), newest first. */
export function listOwnerTokens({ ctx, owner }: { ctx: GatewayContext; owner: OwnerPrincipal }): OwnerTokenView[] {
  return ctx.db
    .select({
      id: ownerTokens.id,
      name: ownerTokens.name,
      createdAt: ownerTokens.createdAt,
      expiresAt: ownerTokens.expiresAt,
      lastUsedAt: ownerTokens.lastUsedAt,
    })
    .from(ownerTokens)
    .where(and(eq(ownerTokens.ownerId, owner.ownerId), eq(ownerTokens.kind, "token"), isNull(ownerTokens.revokedAt)))
    .orderBy(desc(ownerTokens.id))
    .all();
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

/**
 * Ends every session of an owner (its password changed). Bearer tokens stay: they are credentials of their own,
 * listed and revoked one by one (docs/decisions.md, "Owner sign-in").
 */
export function revokeSessions(db: Pick<GatewayDb, "update">, ownerId: string, now: Date): void {
  db.update(ownerTokens)
    .set({ revokedAt: now.toISOString() })
    .where(and(eq(ownerTokens.ownerId, ownerId), eq(ownerTokens.kind, "session"), isNull(ownerTokens.revokedAt)))
    .run();
}
