import type { GatewayContext } from "../../context.js";

/** The platform events the gateway accepted for a company, newest first, with how many vendor deliveries each made. */
export async function listPlatformEvents({
  ctx,
  companyId,
  limit,
}: {
  ctx: GatewayContext;
  companyId: string;
  limit: number;
}) {
  return await ctx.webhooks.platformEvents.list(companyId, Math.min(Math.max(limit, 1), 200));
}
