import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { Database, Sql } from "../sql/database.js";
import type { StoreSql } from "../sql/store-sql.js";

/** Ids per statement of a step's updates: far below either database's limit of bound values. */
const IDS_PER_STATEMENT = 500;

/**
 * An erasure's step over a company's deliveries whose dedupe key starts with one of `prefixes` (the person's
 * submissions and appointments: `submission:<id>:`): their bodies and response excerpts are dropped, and each event
 * they carry is rewritten by `redact` (undefined: left as it is). One transaction of its own, immediate on SQLite; on
 * PostgreSQL the rows are locked, in id order, while they are rewritten.
 */
export async function eraseDeliveries(
  target: StoreSql,
  companyId: string,
  prefixes: readonly string[],
  redact: (envelope: string) => string | undefined,
): Promise<{ webhookEvents: number; pendingDeliveries: number }> {
  if (prefixes.length === 0) return { webhookEvents: 0, pendingDeliveries: 0 };
  const postgres = target.dialect === "postgres";
  return target.atomically(async (db) => {
    const asRange = !postgres || (await orderedBytewise(db));
    const found = await db
      .selectFrom("webhookDeliveries")
      .select(["id", "eventId", "status"])
      .where("companyId", "=", companyId)
      .where((eb) => eb.or(prefixes.map((prefix) => startsWith(eb, prefix, asRange))))
      .$if(postgres, (q) => q.orderBy("id").forUpdate())
      .execute();
    const pendingDeliveries = found.filter((d) => d.status === "pending" || d.status === "delivering").length;
    for (const ids of chunks(found.map((d) => d.id))) {
      await db
        .updateTable("webhookDeliveries")
        .set({ body: null, profileVersionId: null })
        .where("id", "in", ids)
        .execute();
      await db
        .updateTable("webhookAttempts")
        .set({ responseExcerpt: null })
        .where("deliveryRowId", "in", ids)
        .execute();
    }
    let webhookEvents = 0;
    for (const ids of chunks([...new Set(found.map((d) => d.eventId))])) {
      const events = await db
        .selectFrom("webhookEvents")
        .select(["id", "envelope"])
        .where("id", "in", ids)
        .$if(postgres, (q) => q.orderBy("id").forUpdate())
        .execute();
      for (const event of events) {
        const redacted = redact(event.envelope);
        if (redacted === undefined) continue;
        await db.updateTable("webhookEvents").set({ envelope: redacted }).where("id", "=", event.id).execute();
        webhookEvents++;
      }
    }
    return { webhookEvents, pendingDeliveries };
  }, "immediate");
}

/**
 * The keys starting with `prefix`: a range on the (dedupe_key, subscription) index where text is ordered by its bytes
 * ([`submission:x:`, `submission:x;`)), else `starts_with` (in a linguistic collation they are no range: D-246).
 */
function startsWith(
  eb: ExpressionBuilder<Database, "webhookDeliveries">,
  prefix: string,
  asRange: boolean,
): Expression<SqlBool> {
  if (!asRange) return sql<SqlBool>`starts_with(${eb.ref("dedupeKey")}, ${prefix})`;
  const next = `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
  return eb.and([eb("dedupeKey", ">=", prefix), eb("dedupeKey", "<", next)]);
}

/**
 * PostgreSQL: whether the database's default collation orders text by bytes (C, POSIX, C.UTF-8 of libc), as SQLite's
 * BINARY does. `datlocprovider` exists from PostgreSQL 15 on (read through jsonb so older servers answer too: libc).
 */
async function orderedBytewise(db: Sql): Promise<boolean> {
  const { rows } = await sql<{ collate: string; provider: string | null }>`
    SELECT datcollate AS collate, to_jsonb(d) ->> 'datlocprovider' AS provider FROM pg_database d
    WHERE datname = current_database()`.execute(db);
  const row = rows[0];
  if (!row || (row.provider !== null && row.provider !== "c")) return false;
  return /^(C|POSIX)(\..*)?$/i.test(row.collate);
}

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let from = 0; from < items.length; from += IDS_PER_STATEMENT) yield items.slice(from, from + IDS_PER_STATEMENT);
}
