import type { StoreSql } from "../sql/store-sql.js";
import type { PlatformEventStore } from "./port.js";
import type { NewPlatformEvent, PlatformEventRow, PlatformEventSummary, PlatformSecretsRow } from "./row.js";

/** What an erasure's pass reads of a received event to decide its new body. */
type RedactedRow = Pick<PlatformEventRow, "resourceType" | "resourceId" | "body">;

/** The platform events received for a company, and the sealed ring of secrets they are verified with. */
export class SqlPlatformEventStore implements PlatformEventStore {
  readonly #sql: StoreSql;

  constructor(sql: StoreSql) {
    this.#sql = sql;
  }

  /** The company's sealed secret ring (§6.3), if it has one. */
  async sealedSecrets(companyId: string): Promise<string | undefined> {
    const row = await this.#sql.db
      .selectFrom("platformWebhookSecrets")
      .select("sealedSecrets")
      .where("companyId", "=", companyId)
      .executeTakeFirst();
    return row?.sealedSecrets;
  }

  async saveSealedSecrets(companyId: string, sealedSecrets: string, now: string): Promise<void> {
    const row: PlatformSecretsRow = { companyId, sealedSecrets, createdAt: now, updatedAt: now };
    await this.#sql.db
      .insertInto("platformWebhookSecrets")
      .values(row)
      .onConflict((conflict) => conflict.column("companyId").doUpdateSet({ sealedSecrets, updatedAt: now }))
      .execute();
  }

  /** Stores a received event; false when it is stored already (another delivery of it committed first: §6.6). */
  async insert(event: NewPlatformEvent): Promise<boolean> {
    const result = await this.#sql.db
      .insertInto("platformEvents")
      .values(event)
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return result.numInsertedOrUpdatedRows !== 0n;
  }

  async setFannedOut(companyId: string, eventId: string, fannedOut: number): Promise<void> {
    await this.#sql.db
      .updateTable("platformEvents")
      .set({ fannedOut })
      .where("companyId", "=", companyId)
      .where("id", "=", eventId)
      .execute();
  }

  /** A company's received events, newest first (the (company, received_at) index), with the deliveries each made. */
  list(companyId: string, limit: number): Promise<PlatformEventSummary[]> {
    return this.#sql.db
      .selectFrom("platformEvents")
      .select([
        "id",
        "event",
        "resourceType",
        "resourceId",
        "resourceVersion",
        "occurredAt",
        "receivedAt",
        "deliveryId",
        "fannedOut",
      ])
      .where("companyId", "=", companyId)
      .orderBy("receivedAt", "desc")
      .limit(limit)
      .execute();
  }

  async bodyOf(companyId: string, eventId: string): Promise<string | undefined> {
    const row = await this.#sql.db
      .selectFrom("platformEvents")
      .select("body")
      .where("companyId", "=", companyId)
      .where("id", "=", eventId)
      .executeTakeFirst();
    return row?.body;
  }

  /**
   * An erasure's pass over a company's received events, newest first on the (company, received_at) index, `perStep`
   * rows per transaction of their own (immediate on SQLite; on PostgreSQL the rows locked while rewritten) with the
   * event loop's turn between steps: `redact` gives a row's new body, or undefined to leave it. The keyset is
   * (received_at, id), the id being unique within the company. Returns how many were rewritten.
   */
  async rewriteBodies(companyId: string, perStep: number, redact: (row: RedactedRow) => string | undefined) {
    let rewritten = 0;
    let before: Pick<PlatformEventRow, "receivedAt" | "id"> | undefined;
    for (;;) {
      const after = before;
      const step = await this.#sql.atomically(async (db) => {
        const rows = await db
          .selectFrom("platformEvents")
          .select(["id", "receivedAt", "resourceType", "resourceId", "body"])
          .where("companyId", "=", companyId)
          .$if(after !== undefined, (q) =>
            q.where((eb) =>
              eb(eb.refTuple("receivedAt", "id"), "<", eb.tuple(after?.receivedAt ?? "", after?.id ?? "")),
            ),
          )
          .orderBy("receivedAt", "desc")
          .orderBy("id", "desc")
          .limit(perStep)
          .$if(this.#sql.dialect === "postgres", (q) => q.forUpdate())
          .execute();
        let changed = 0;
        for (const row of rows) {
          const body = redact(row);
          if (body === undefined) continue;
          await db
            .updateTable("platformEvents")
            .set({ body })
            .where("companyId", "=", companyId)
            .where("id", "=", row.id)
            .execute();
          changed++;
        }
        return { scanned: rows.length, changed, last: rows.at(-1) };
      }, "immediate");
      rewritten += step.changed;
      if (step.scanned < perStep || step.last === undefined) return rewritten;
      before = step.last;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
