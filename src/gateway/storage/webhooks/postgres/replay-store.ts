import type { ReplayStore } from "../../../../contract/replay-store.js";
import type { PgHandles } from "../../pg-handles.js";
import { run, STATEMENTS } from "./statements.js";

/**
 * §6.6 for the gateway's receiver on PostgreSQL: a delivery id is new for exactly one of the processes that receive
 * it at once. The insert is the check (`ON CONFLICT DO NOTHING` on the primary key, then its row count), never a read
 * before a write: a second insert of the same id waits for the first one's transaction and then inserts nothing
 * (D-245).
 */
export class PostgresReplayStore implements ReplayStore {
  readonly #handles: PgHandles;
  readonly #companyId: string;

  constructor(handles: PgHandles, companyId: string) {
    this.#handles = handles;
    this.#companyId = companyId;
  }

  async rememberDelivery(deliveryId: string, keepUntil: number): Promise<boolean> {
    const result = await run(this.#handles.client, STATEMENTS.rememberDelivery, [
      this.#companyId,
      deliveryId,
      keepUntil,
    ]);
    return result.rowCount === 1;
  }

  async isEventProcessed(eventId: string): Promise<boolean> {
    const result = await run(this.#handles.client, STATEMENTS.isEventProcessed, [this.#companyId, eventId]);
    return result.rows.length > 0;
  }
}

/** Forgets delivery ids whose signatures have expired (one statement, as on SQLite). */
export async function purgePlatformDeliveries({ client }: PgHandles, nowSeconds: number): Promise<number> {
  const result = await client.query("DELETE FROM platform_deliveries WHERE keep_until < $1::float8", [nowSeconds]);
  return result.rowCount ?? 0;
}
