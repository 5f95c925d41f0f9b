import { and, desc, eq } from "drizzle-orm";
import { platformEvents, platformWebhookSecrets } from "../../../../db/schema-pg/index.js";
import { type PgHandles, pgTransaction } from "../../pg-handles.js";
import type { NewPlatformEvent } from "../platform-events.js";
import type { PlatformEventStore, PlatformEventSummary } from "../port.js";

/** The platform events received for a company and its sealed secret ring, on PostgreSQL (as ../platform-events.ts). */
export class PostgresPlatformEventStore implements PlatformEventStore {
  readonly #handles: PgHandles;

  constructor(handles: PgHandles) {
    this.#handles = handles;
  }

  async sealedSecrets(companyId: string): Promise<string | undefined> {
    const [row] = await this.#handles.db
      .select({ sealedSecrets: platformWebhookSecrets.sealedSecrets })
      .from(platformWebhookSecrets)
      .where(eq(platformWebhookSecrets.companyId, companyId));
    return row?.sealedSecrets;
  }

  async saveSealedSecrets(companyId: string, sealedSecrets: string, now: string): Promise<void> {
    await this.#handles.db
      .insert(platformWebhookSecrets)
      .values({ companyId, sealedSecrets, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: platformWebhookSecrets.companyId, set: { sealedSecrets, updatedAt: now } });
  }

  /** Stores a received event; false when it is stored already (another delivery of it committed first). */
  async insert(event: NewPlatformEvent): Promise<boolean> {
    const result = await this.#handles.db.insert(platformEvents).values(event).onConflictDoNothing();
    return (result.rowCount ?? 0) > 0;
  }

  async setFannedOut(companyId: string, eventId: string, fannedOut: number): Promise<void> {
    await this.#handles.db
      .update(platformEvents)
      .set({ fannedOut })
      .where(and(eq(platformEvents.companyId, companyId), eq(platformEvents.id, eventId)));
  }

  /** A company's received events, newest first. */
  async list(companyId: string, limit: number): Promise<PlatformEventSummary[]> {
    return this.#handles.db
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
      .limit(limit);
  }

  async bodyOf(companyId: string, eventId: string): Promise<string | undefined> {
    const [row] = await this.#handles.db
      .select({ body: platformEvents.body })
      .from(platformEvents)
      .where(and(eq(platformEvents.companyId, companyId), eq(platformEvents.id, eventId)));
    return row?.body;
  }

  /**
   * An erasure's pass over a company's received events, newest first, `perStep` rows per transaction (the rows locked
   * while rewritten, as SQLite's immediate transaction held the writer). The table has no rowid: the keyset is
   * (received_at, id), the id being unique within the company.
   */
  async rewriteBodies(
    companyId: string,
    perStep: number,
    redact: (row: { resourceType: string; resourceId: string; body: string }) => string | undefined,
  ): Promise<number> {
    let rewritten = 0;
    let before: { receivedAt: string; id: string } | undefined;
    for (;;) {
      const after = before;
      const step = await pgTransaction(this.#handles, async ({ client }) => {
        const { rows } = await client.query<{
          id: string;
          receivedAt: string;
          resourceType: string;
          resourceId: string;
          body: string;
        }>(
          `SELECT id, received_at AS "receivedAt", resource_type AS "resourceType", resource_id AS "resourceId", body
           FROM platform_events WHERE company_id = $1 ${after ? "AND (received_at, id) < ($3, $4)" : ""}
           ORDER BY received_at DESC, id DESC LIMIT $2 FOR UPDATE`,
          after ? [companyId, perStep, after.receivedAt, after.id] : [companyId, perStep],
        );
        const ids: string[] = [];
        const bodies: string[] = [];
        for (const row of rows) {
          const body = redact(row);
          if (body === undefined) continue;
          ids.push(row.id);
          bodies.push(body);
        }
        if (ids.length > 0) {
          await client.query(
            `UPDATE platform_events p SET body = u.body FROM unnest($2::text[], $3::text[]) AS u(id, body)
             WHERE p.company_id = $1 AND p.id = u.id`,
            [companyId, ids, bodies],
          );
        }
        return { scanned: rows.length, rewritten: ids.length, last: rows.at(-1) };
      });
      rewritten += step.rewritten;
      if (step.scanned < perStep || step.last === undefined) return rewritten;
      before = step.last;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
