import { and, asc, desc, eq, gte, inArray, lt, lte, min, ne } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, webhookEvents, webhookSubscriptions } from "../../../db/schema/index.js";
import type { WebhookDeliveryRow, WebhookDeliveryStatus } from "../../../db/schema/webhook-deliveries.js";
import { idFloor } from "../../../ids.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { DeliveryStore } from "./port.js";
import { PENDING } from "./statements.js";

export type { WebhookDeliveryRow, WebhookDeliveryStatus } from "../../../db/schema/webhook-deliveries.js";

/**
 * Webhook events, their deliveries and the deliveries' attempts, beyond the dispatcher's prepared hot path
 * (statements.ts): the owner's delivery log and redelivery, the dispatcher's start and backlog, an erasure's
 * redaction, disabling a failing endpoint.
 */
export class SqliteDeliveryStore implements DeliveryStore {
  readonly #db: StorageHandles["db"];
  readonly #sqlite: StorageHandles["sqlite"];

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
    this.#sqlite = handles.sqlite;
  }

  /** A subscription's deliveries of one status, newest first, `limit` of them below `before`. */
  async pageOf(subscriptionId: string, status: WebhookDeliveryStatus, before: string | undefined, limit: number) {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.subscriptionId, subscriptionId),
          eq(webhookDeliveries.status, status),
          before ? lt(webhookDeliveries.id, before) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.id))
      .limit(limit)
      .all();
  }

  /** One of a company's deliveries. */
  async getOfCompany(id: string, companyId: string): Promise<WebhookDeliveryRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.companyId, companyId)))
      .get();
  }

  async envelopeOf(eventId: string): Promise<string | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ envelope: webhookEvents.envelope })
      .from(webhookEvents)
      .where(eq(webhookEvents.id, eventId))
      .get()?.envelope;
  }

  /** A delivery's attempts, in order. */
  async attemptsOf(deliveryRowId: string) {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryRowId, deliveryRowId))
      .orderBy(asc(webhookAttempts.attempt))
      .all();
  }

  async update(id: string, change: Partial<WebhookDeliveryRow>): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.update(webhookDeliveries).set(change).where(eq(webhookDeliveries.id, id)).run();
  }

  /**
   * Resets a subscription's deliveries created in [from, to] with these statuses (never a pending one) to `change`;
   * the time range as an id range (ids carry their creation time) runs on the (subscription, status, id) index.
   */
  async resetRange(
    subscriptionId: string,
    statuses: WebhookDeliveryStatus[],
    from: Date,
    to: Date,
    change: Partial<WebhookDeliveryRow>,
  ): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .update(webhookDeliveries)
      .set(change)
      .where(
        and(
          eq(webhookDeliveries.subscriptionId, subscriptionId),
          inArray(webhookDeliveries.status, statuses),
          ne(webhookDeliveries.status, "pending"),
          gte(webhookDeliveries.id, idFloor("whd", from.getTime())),
          lt(webhookDeliveries.id, idFloor("whd", to.getTime() + 1)),
          gte(webhookDeliveries.createdAt, from.toISOString()),
          lte(webhookDeliveries.createdAt, to.toISOString()),
        ),
      )
      .run().changes;
  }

  /**
   * At a dispatcher's start: `delivering` rows (a previous process's) are pending again. Per subscription, so the
   * (subscription, status, id) index finds them without reading the whole table.
   */
  async resumeDelivering(): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .update(webhookDeliveries)
      .set({ status: "pending" })
      .where(
        and(
          inArray(
            webhookDeliveries.subscriptionId,
            this.#db.select({ id: webhookSubscriptions.id }).from(webhookSubscriptions),
          ),
          eq(webhookDeliveries.status, "delivering"),
        ),
      )
      .run();
  }

  /** The earliest due time of every subscription with pending work. */
  async backlog(): Promise<{ subscriptionId: string; due: number | null }[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ subscriptionId: webhookDeliveries.subscriptionId, due: min(webhookDeliveries.nextAttemptAt) })
      .from(webhookDeliveries)
      .where(PENDING)
      .groupBy(webhookDeliveries.subscriptionId)
      .all();
  }

  /** Disables an active subscription (its endpoint failed too long). */
  async disableSubscription(subscriptionId: string, reason: string, nowIso: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .update(webhookSubscriptions)
      .set({ status: "disabled", disabledReason: reason, disabledAt: nowIso, updatedAt: nowIso })
      .where(and(eq(webhookSubscriptions.id, subscriptionId), eq(webhookSubscriptions.status, "active")))
      .run();
  }

  /**
   * An erasure's step over a company's deliveries whose dedupe key starts with one of `prefixes` (the person's
   * submissions and appointments): their bodies and response excerpts are dropped, and each event they carry is
   * rewritten by `redact` (undefined: left as it is). One immediate transaction.
   */
  async eraseDeliveries(
    companyId: string,
    prefixes: readonly string[],
    redact: (envelope: string) => string | undefined,
  ): Promise<{ webhookEvents: number; pendingDeliveries: number }> {
    while (this.#gate.busy) await this.#gate.pass();
    const sqlite = this.#sqlite;
    // `:` + 1 is `;`: the range of every key that starts with the prefix, on the (dedupe_key, subscription) index.
    const deliveries = sqlite.prepare<[string, string, string], { id: string; eventId: string; status: string }>(
      `SELECT id, event_id AS eventId, status FROM webhook_deliveries
       WHERE dedupe_key >= ? AND dedupe_key < ? AND company_id = ?`,
    );
    const dropBody = sqlite.prepare(
      "UPDATE webhook_deliveries SET body = NULL, profile_version_id = NULL WHERE id = ?",
    );
    const dropExcerpts = sqlite.prepare(
      "UPDATE webhook_attempts SET response_excerpt = NULL WHERE delivery_row_id = ?",
    );
    const envelope = sqlite.prepare<[string], { envelope: string }>("SELECT envelope FROM webhook_events WHERE id = ?");
    const setEnvelope = sqlite.prepare("UPDATE webhook_events SET envelope = ? WHERE id = ?");
    return sqlite
      .transaction(() => {
        const events = new Set<string>();
        let pendingDeliveries = 0;
        for (const prefix of prefixes) {
          for (const delivery of deliveries.all(prefix, `${prefix.slice(0, -1)};`, companyId)) {
            dropBody.run(delivery.id);
            dropExcerpts.run(delivery.id);
            events.add(delivery.eventId);
            if (delivery.status === "pending" || delivery.status === "delivering") pendingDeliveries++;
          }
        }
        let webhookEvents = 0;
        for (const id of events) {
          const stored = envelope.get(id);
          if (!stored) continue;
          const redacted = redact(stored.envelope);
          if (redacted === undefined) continue;
          setEnvelope.run(redacted, id);
          webhookEvents++;
        }
        return { webhookEvents, pendingDeliveries };
      })
      .immediate();
  }
}
