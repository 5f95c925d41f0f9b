import { and, desc, eq } from "drizzle-orm";
import { platformEvents, platformWebhookSecrets } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { PlatformEventStore } from "./port.js";

export type NewPlatformEvent = typeof platformEvents.$inferInsert;

/** The platform events received for a company, and the sealed ring of secrets they are verified with. */
export class SqlitePlatformEventStore implements PlatformEventStore {
  readonly #handles: StorageHandles;

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#handles = handles;
  }

  /** The company's sealed secret ring (§6.3), if it has one. */
  async sealedSecrets(companyId: string): Promise<string | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#handles.db
      .select()
      .from(platformWebhookSecrets)
      .where(eq(platformWebhookSecrets.companyId, companyId))
      .get()?.sealedSecrets;
  }

  async saveSealedSecrets(companyId: string, sealedSecrets: string, now: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#handles.db
      .insert(platformWebhookSecrets)
      .values({ companyId, sealedSecrets, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: platformWebhookSecrets.companyId, set: { sealedSecrets, updatedAt: now } })
      .run();
  }

  /** Stores a received event; false when it is stored already (another delivery of it committed first). */
  async insert(event: NewPlatformEvent): Promise<boolean> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#handles.db.insert(platformEvents).values(event).onConflictDoNothing().run().changes !== 0;
  }

  async setFannedOut(companyId: string, eventId: string, fannedOut: number): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#handles.db
      .update(platformEvents)
      .set({ fannedOut })
      .where(and(eq(platformEvents.companyId, companyId), eq(platformEvents.id, eventId)))
      .run();
  }

  /** A company's received events, newest first, with how many vendor deliveries each made. */
  async list(companyId: string, limit: number) {
    while (this.#gate.busy) await this.#gate.pass();
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

  async bodyOf(companyId: string, eventId: string): Promise<string | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#handles.db
      .select({ body: platformEvents.body })
      .from(platformEvents)
      .where(and(eq(platformEvents.companyId, companyId), eq(platformEvents.id, eventId)))
      .get()?.body;
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
    const { sqlite, gate } = this.#handles;
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
      while (gate.busy) await gate.pass();
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
