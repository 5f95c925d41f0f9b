import { and, desc, eq } from "drizzle-orm";
import { platformEvents, platformWebhookSecrets } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";

export type NewPlatformEvent = typeof platformEvents.$inferInsert;

/** The platform events received for a company, and the sealed ring of secrets they are verified with. */
export class PlatformEventStore {
  readonly #handles: StorageHandles;

  constructor(handles: StorageHandles) {
    this.#handles = handles;
  }

  /** The company's sealed secret ring (§6.3), if it has one. */
  sealedSecrets(companyId: string): string | undefined {
    return this.#handles.db
      .select()
      .from(platformWebhookSecrets)
      .where(eq(platformWebhookSecrets.companyId, companyId))
      .get()?.sealedSecrets;
  }

  saveSealedSecrets(companyId: string, sealedSecrets: string, now: string): void {
    this.#handles.db
      .insert(platformWebhookSecrets)
      .values({ companyId, sealedSecrets, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: platformWebhookSecrets.companyId, set: { sealedSecrets, updatedAt: now } })
      .run();
  }

  /** Stores a received event; false when it is stored already (another delivery of it committed first). */
  insert(event: NewPlatformEvent): boolean {
    return this.#handles.db.insert(platformEvents).values(event).onConflictDoNothing().run().changes !== 0;
  }

  setFannedOut(companyId: string, eventId: string, fannedOut: number): void {
    this.#handles.db
      .update(platformEvents)
      .set({ fannedOut })
      .where(and(eq(platformEvents.companyId, companyId), eq(platformEvents.id, eventId)))
      .run();
  }

  /** A company's received events, newest first, with how many vendor deliveries each made. */
  list(companyId: string, limit: number) {
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
      .limit(limit)
      .all();
  }

  /**
   * An erasure's pass over a company's received events, newest first on the (company, received_at) index, `perStep`
   * rows per immediate transaction with the event loop's turn between steps: `redact` gives a row's new body, or
   * undefined to leave it. Returns how many were rewritten.
   */
  async rewriteBodies(
    companyId: string,
    perStep: number,
    redact: (row: { resourceType: string; resourceId: string; body: string }) => string | undefined,
  ): Promise<number> {
    const { sqlite } = this.#handles;
    const select = sqlite.prepare<
      [string, string, number, number],
      { rowid: number; receivedAt: string; resourceType: string; resourceId: string; body: string }
    >(
      `SELECT rowid, received_at AS receivedAt, resource_type AS resourceType, resource_id AS resourceId, body
       FROM platform_events WHERE company_id = ? AND (received_at, rowid) < (?, ?)
       ORDER BY received_at DESC, rowid DESC LIMIT ?`,
    );
    const setBody = sqlite.prepare("UPDATE platform_events SET body = ? WHERE rowid = ?");
    let rewritten = 0;
    let before = { receivedAt: "\uffff", rowid: 0 };
    for (;;) {
      const step = sqlite
        .transaction(() => {
          const rows = select.all(companyId, before.receivedAt, before.rowid, perStep);
          for (const row of rows) {
            const body = redact(row);
            if (body === undefined) continue;
            setBody.run(body, row.rowid);
            rewritten++;
          }
          return { scanned: rows.length, last: rows.at(-1) };
        })
        .immediate();
      if (step.scanned < perStep || step.last === undefined) return rewritten;
      before = step.last;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
