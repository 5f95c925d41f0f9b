import type { ReplayStore } from "../../../contract/replay-store.js";
import { CompiledOnce, pick } from "../sql/compiled.js";
import type { StoreSql } from "../sql/store-sql.js";
import { columnsOf } from "../sql/values.js";
import type { PlatformDeliveryRow } from "./row.js";

/** §6.3.2: a delivery id is new for exactly one of its receipts, whichever process: the insert is the check (D-245). */
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
 * §6.6 for the gateway's receiver: the delivery ids seen (until their signature expires) and the events processed, in
 * the database, so any process answers a redelivery 2xx without processing it.
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
