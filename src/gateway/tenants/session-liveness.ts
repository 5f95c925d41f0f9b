import type { GatewayContext } from "../context.js";
import { digestToken } from "../security/tokens.js";

/**
 * Why a session or token that authenticated a long request (a live stream) no longer would, or null while it still
 * would: revoked (signed out), expired, or idle past `settings.sessionIdleMs`. The same rules as authenticateOwner,
 * without touching `last_used_at`: an open stream is not the owner's activity, so it does not keep a session alive
 * (D-237).
 */
export async function sessionEnded({ ctx, token }: { ctx: GatewayContext; token: string }): Promise<string | null> {
  const row = await ctx.tenants.tokenWithOwner(digestToken(token));
  if (!row || row.token.revokedAt) return "signed out";
  const now = ctx.now().getTime();
  if (row.token.expiresAt && Date.parse(row.token.expiresAt) <= now) return "session expired";
  const lastUsed = Date.parse(row.token.lastUsedAt ?? row.token.createdAt);
  if (row.token.kind === "session" && now - lastUsed >= ctx.settings.sessionIdleMs) return "session idle";
  return null;
}
