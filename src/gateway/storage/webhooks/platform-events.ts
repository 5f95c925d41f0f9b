import { run, type StoreSql } from "../sql/store-sql.js";
import type { PlatformEventStore } from "./port.js";
import type { PlatformEventRow } from "./row.js";

/** The platform events received for a company, and the sealed ring of secrets they are verified with. */
export function sqlPlatformEventStore(sql: StoreSql): PlatformEventStore {
  const { db } = sql;
  return {
    async sealedSecrets(companyId) {
      const row = await db
        .selectFrom("platformWebhookSecrets")
        .select("sealedSecrets")
        .where("companyId", "=", companyId)
        .executeTakeFirst();
      return row?.sealedSecrets;
    },
    saveSealedSecrets: (companyId, sealedSecrets, now) =>
      run(
        db
          .insertInto("platformWebhookSecrets")
          .values({ companyId, sealedSecrets, createdAt: now, updatedAt: now })
          .onConflict((conflict) => conflict.column("companyId").doUpdateSet({ sealedSecrets, updatedAt: now })),
      ),
    async insert(event) {
      const result = await db
        .insertInto("platformEvents")
        .values(event)
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      return result.numInsertedOrUpdatedRows !== 0n;
    },
    setFannedOut: (companyId, eventId, fannedOut) =>
      run(
        db
          .updateTable("platformEvents")
          .set({ fannedOut })
          .where("companyId", "=", companyId)
          .where("id", "=", eventId),
      ),
    // On the (company, received_at) index.
    list: (companyId, limit) =>
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
    async bodyOf(companyId, eventId) {
      const row = await db
        .selectFrom("platformEvents")
        .select("body")
        .where("companyId", "=", companyId)
        .where("id", "=", eventId)
        .executeTakeFirst();
      return row?.body;
    },
    // Newest first on the (company, received_at) index, keyset (received_at, id), `perStep` rows per immediate
    // transaction (the rows locked on PostgreSQL) with the event loop's turn between steps.
    async rewriteBodies(companyId, perStep, redact) {
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
