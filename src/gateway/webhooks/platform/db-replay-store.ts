import { and, eq, lt } from "drizzle-orm";
import type { ReplayStore } from "../../../contract/replay-store.js";
import { platformDeliveries, platformEvents } from "../../../db/schema/index.js";
import type { GatewayContext } from "../../context.js";

/**
 * §6.3.2 "de-duplicate" and §6.6 on the gateway's database, per company: a delivery id is new if its insert adds a
 * row; an event is processed once its row is in platform_events (written with its fan-out, §6.4.1).
 */
export class DbReplayStore implements ReplayStore {
  constructor(
    private readonly ctx: GatewayContext,
    private readonly companyId: string,
  ) {}

  rememberDelivery(deliveryId: string, keepUntil: number): boolean {
    const result = this.ctx.db
      .insert(platformDeliveries)
      .values({ companyId: this.companyId, deliveryId, keepUntil })
      .onConflictDoNothing()
      .run();
    return result.changes > 0;
  }

  isEventProcessed(eventId: string): boolean {
    const row = this.ctx.db
      .select({ id: platformEvents.id })
      .from(platformEvents)
      .where(and(eq(platformEvents.companyId, this.companyId), eq(platformEvents.id, eventId)))
      .get();
    return row !== undefined;
  }
}

/** Drops delivery ids whose copies would now fail the timestamp check anyway. */
export function purgePlatformDeliveries({ ctx, nowSeconds }: { ctx: GatewayContext; nowSeconds: number }): number {
  return ctx.db.delete(platformDeliveries).where(lt(platformDeliveries.keepUntil, nowSeconds)).run().changes;
}
