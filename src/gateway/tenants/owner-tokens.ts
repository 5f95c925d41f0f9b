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
export async function createOwnerToken({
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
  await ctx.tenants.insertToken({
    id,
    ownerId: owner.ownerId,
    kind: "token",
    name: input.name,
    tokenDigest: digestToken(token),
    createdAt: now.toISOString(),
    expiresAt,
  });
  return { id, name: input.name, token, expiresAt };
}

/** The owner's own bearer tokens not revoked (expired ones included, with their expiry), newest first. */
export async function listOwnerTokens({
  ctx,
  owner,
}: {
  ctx: GatewayContext;
  owner: OwnerPrincipal;
}): Promise<OwnerTokenView[]> {
  return await ctx.tenants.tokensOf(owner.ownerId);
}

/** Revokes a session or token of the same owner; another owner's token is a 404. */
export async function revokeOwnerToken({
  ctx,
  owner,
  tokenId,
}: {
  ctx: GatewayContext;
  owner: OwnerPrincipal;
  tokenId: string;
}) {
  if (!(await ctx.tenants.revokeToken(tokenId, owner.ownerId, ctx.now().toISOString()))) throw notFound();
}
