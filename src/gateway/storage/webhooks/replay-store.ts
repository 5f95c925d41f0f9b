import { and, eq, lt } from "drizzle-orm";
import type { ReplayStore } from "../../../contract/replay-store.js";
import { platformDeliveries, platformEvents } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";

/**
 * §6.6 for the gateway's receiver of platform deliveries: a delivery id seen (kept until its signature could no longer
 * pass the §6.3.2 timestamp check) and an event id processed are remembered in the database, so a redelivery is
 * answered 2xx without processing, whichever process receives it.
 */
export class DbReplayStore implements ReplayStore {
  constructor(
    private readonly handles: StorageHandles,
    private readonly companyId: string,
  ) {}

  async rememberDelivery(deliveryId: string, keepUntil: number): Promise<boolean> {
    while (this.handles.gate.busy) await this.handles.gate.pass();
    const result = this.handles.db
      .insert(platformDeliveries)
      .values({ companyId: this.companyId, deliveryId, keepUntil })
      .onConflictDoNothing()
      .run();
    return result.changes > 0;
  }

  async isEventProcessed(eventId: string): Promise<boolean> {
    while (this.handles.gate.busy) await this.handles.gate.pass();
    const row = this.handles.db
      .select({ id: platformEvents.id })
      .from(platformEvents)
      .where(and(eq(platformEvents.companyId, this.companyId), eq(platformEvents.id, eventId)))
      .get();
    return row !== undefined;
  }
}

/** Forgets delivery ids whose signatures have expired. */
export function purgePlatformDeliveries({ db }: StorageHandles, nowSeconds: number): number {
  return db.delete(platformDeliveries).where(lt(platformDeliveries.keepUntil, nowSeconds)).run().changes;
}
