import type { ReplayStore } from "../../../contract/replay-store.js";
import { CompiledOnce, pick } from "../sql/compiled.js";
import type { StoreSql } from "../sql/store-sql.js";
import { columnsOf } from "../sql/values.js";
import type { PlatformDeliveryRow } from "./row.js";

/**
 * §6.3.2: a delivery id is new for exactly one of the receipts of it, whichever processes receive it at once. The
 * insert is the check (`ON CONFLICT DO NOTHING` on the primary key, then its row count), never a read before a write:
 * on PostgreSQL a second insert of the same id waits for the first one's transaction, then inserts nothing (D-245).
 */
const REMEMBER_DELIVERY = new CompiledOnce((on, row: PlatformDeliveryRow) =>
  on.db
    .insertInto("platformDeliveries")
    .values(pick(row, columnsOf("platformDeliveries")))
    .onConflict((conflict) => conflict.doNothing()),
);

/** §6.6: an event is processed once its row is stored (with its fan-out, in one transaction). */
const EVENT_PROCESSED = new CompiledOnce((on, args: { companyId: string; eventId: string }) =>
  on.db
    .selectFrom("platformEvents")
    .select("id")
    .where("companyId", "=", args.companyId)
    .where("id", "=", args.eventId),
);

/**
 * §6.6 for the gateway's receiver of platform deliveries: a delivery id seen (kept until its signature could no longer
 * pass the §6.3.2 timestamp check) and an event id processed are remembered in the database, so a redelivery is
 * answered 2xx without processing, whichever process receives it.
 */
export function sqlReplayStore(sql: StoreSql, companyId: string): ReplayStore {
  return {
    async rememberDelivery(deliveryId, keepUntil) {
      const row = { companyId, deliveryId, keepUntil: Math.ceil(keepUntil) };
      return (await REMEMBER_DELIVERY.run(sql, row)).numAffectedRows === 1n;
    },
    isEventProcessed: async (eventId) => (await EVENT_PROCESSED.run(sql, { companyId, eventId })).rows.length > 0,
  };
}

/**
 * Forgets delivery ids whose signatures have expired (one statement, on the keep_until index). `keep_until < now` for
 * whole seconds is `keep_until < ceil(now)`: PostgreSQL's bigint takes no fraction.
 */
export async function purgePlatformDeliveries(sql: StoreSql, nowSeconds: number): Promise<number> {
  const result = await sql.db
    .deleteFrom("platformDeliveries")
    .where("keepUntil", "<", Math.ceil(nowSeconds))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
