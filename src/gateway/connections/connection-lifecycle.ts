import { conflict, notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import type { ConnectionRow } from "../storage/connections/index.js";
import { publicConnection } from "./connection-view.js";
import { digestHookToken, hookUrl, newHookToken } from "./hook-token.js";

/** How long a rotated hook URL keeps working by default: a vendor's dashboard is changed by hand. */
export const DEFAULT_HOOK_OVERLAP_HOURS = 24;

export async function getConnectionRow(ctx: GatewayContext, companyId: string, id: string): Promise<ConnectionRow> {
  const row = await ctx.connections.getOfCompany(id, companyId);
  if (!row) throw notFound();
  return row;
}

export async function listConnections({ ctx, companyId }: { ctx: GatewayContext; companyId: string }) {
  return (await ctx.connections.listOfCompany(companyId)).map((row) => publicConnection(ctx, row));
}

/**
 * A new hook URL (shown once); the previous one keeps working for `overlapHours` (0: not at all), so the owner can
 * paste the new one into the vendor's dashboard before the old one stops.
 */
export async function rotateHookUrl({
  ctx,
  companyId,
  id,
  overlapHours = DEFAULT_HOOK_OVERLAP_HOURS,
}: {
  ctx: GatewayContext;
  companyId: string;
  id: string;
  overlapHours?: number;
}) {
  const row = await getConnectionRow(ctx, companyId, id);
  if (row.revokedAt !== null) throw conflict("the connection is revoked");
  const token = newHookToken();
  const until = overlapHours > 0 ? new Date(ctx.now().getTime() + overlapHours * 3_600_000).toISOString() : null;
  const change = {
    tokenDigest: digestHookToken(token),
    previousTokenDigest: until === null ? null : row.tokenDigest,
    previousValidUntil: until,
  };
  await ctx.connections.update(row.id, change);
  return { ...publicConnection(ctx, { ...row, ...change }), hookUrl: hookUrl(ctx.settings.publicUrl, token) };
}

/**
 * Revokes a connection: its hook URL (and a previous one in its overlap) is refused from the next request of every
 * process (the cache follows the table, D-247), and its vendor key with it. What it submitted stays.
 */
export async function revokeConnection({ ctx, companyId, id }: { ctx: GatewayContext; companyId: string; id: string }) {
  const row = await getConnectionRow(ctx, companyId, id);
  if (row.revokedAt !== null) return publicConnection(ctx, row);
  const at = ctx.now().toISOString();
  await ctx.transaction(async (tx) => {
    await tx.connections.update(row.id, { revokedAt: at, previousTokenDigest: null, previousValidUntil: null });
    await tx.vendorKeys.update(row.vendorKeyId, { revokedAt: at });
  });
  return publicConnection(ctx, { ...row, revokedAt: at, previousTokenDigest: null, previousValidUntil: null });
}

/** One connection of the company as the owner sees it (another company's is a 404, §7). */
export async function getConnection({ ctx, companyId, id }: { ctx: GatewayContext; companyId: string; id: string }) {
  return publicConnection(ctx, await getConnectionRow(ctx, companyId, id));
}
