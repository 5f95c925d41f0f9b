import { desc, eq } from "drizzle-orm";
import { platformEvents } from "../../../db/schema/index.js";
import type { GatewayContext } from "../../context.js";

/** The platform events the gateway accepted for a company, newest first, with how many vendor deliveries each made. */
export function listPlatformEvents({
  ctx,
  companyId,
  limit,
}: {
  ctx: GatewayContext;
  companyId: string;
  limit: number;
}) {
  return ctx.db
    .select({
      id: platformEvents.id,
      event: platformEvents.event,
      resourceType: platformEvents.resourceType,
      resourceId: platformEvents.resourceId,
      resourceVersion: platformEvents.resourceVersion,
      occurredAt: platformEvents.occurredAt,
      receivedAt: platformEvents.receivedAt,
      deliveryId: platformEvents.deliveryId,
      fannedOut: platformEvents.fannedOut,
    })
    .from(platformEvents)
    .where(eq(platformEvents.companyId, companyId))
    .orderBy(desc(platformEvents.receivedAt))
    .limit(Math.min(Math.max(limit, 1), 200))
    .all();
}
