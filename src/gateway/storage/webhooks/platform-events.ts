import { run, type StoreSql } from "../sql/store-sql.js";
import type { NewPlatformEvent, PlatformEventRow } from "./row.js";

/** The platform events received for a company, and the sealed ring of secrets they are verified with. */
export function sqlPlatformEventStore(sql: StoreSql) {
  const { db } = sql;
  return {
    /** The company's sealed secret ring (§6.3), if it has one. */
    async sealedSecrets(companyId: string) {
      const row = await db
        .selectFrom("platformWebhookSecrets")
        .select("sealedSecrets")
        .where("companyId", "=", companyId)
        .executeTakeFirst();
      return row?.sealedSecrets;
    },
    saveSealedSecrets: (companyId: string, sealedSecrets: string, now: string) =>
      run(
        db
          .insertInto("platformWebhookSecrets")
          .values({ companyId, sealedSecrets, createdAt: now, updatedAt: now })
          .onConflict((conflict) => conflict.column("companyId").doUpdateSet({ sealedSecrets, updatedAt: now })),
      ),
    /** Stores a received event; false when it is stored already (another delivery of it committed first: §6.6). */
    async insert(event: NewPlatformEvent) {
      const result = await db
        .insertInto("platformEvents")
        .values(event)
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      return result.numInsertedOrUpdatedRows !== 0n;
    },
    setFannedOut: (companyId: string, eventId: string, fannedOut: number) =>
      run(
        db
          .updateTable("platformEvents")
          .set({ fannedOut })
          .where("companyId", "=", companyId)
          .where("id", "=", eventId),
      ),
    /** A company's received events, newest first, with the deliveries each made; the (company, received_at) index. */
    list: (companyId: string, limit: number) =>
      db
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
        .execute(),
    /** The raw body of a received event as stored (§6.4.1), if the company has it. */
    async bodyOf(companyId: string, eventId: string) {
      const row = await db
        .selectFrom("platformEvents")
        .select("body")
        .where("companyId", "=", companyId)
        .where("id", "=", eventId)
        .executeTakeFirst();
      return row?.body;
    },
    /**
     * An erasure's pass over a company's received events: `redact` gives a row's new body, or undefined to leave it.
     * Newest first on the (company, received_at) index, keyset (received_at, id), `perStep` rows per immediate
     * transaction (the rows locked on PostgreSQL) with the event loop's turn between steps. How many were rewritten.
     */
    async rewriteBodies(
      companyId: string,
      perStep: number,
      redact: (row: { resourceType: string; resourceId: string; body: string }) => string | undefined,
    ) {
      let rewritten = 0;
      let before: Pick<PlatformEventRow, "receivedAt" | "id"> | undefined;
      for (;;) {
        const after = before;
        const step = await sql.atomically(async (tx) => {
          const rows = await tx
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
            .$if(sql.dialect === "postgres", (q) => q.forUpdate())
            .execute();
          let changed = 0;
          for (const row of rows) {
            const body = redact(row);
            if (body === undefined) continue;
            await tx
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
    },
  };
}
