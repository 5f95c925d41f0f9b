import { eq } from "drizzle-orm";
import { buildEnvelope } from "../../contract/webhook-envelope.js";
import type { Clock } from "../clock.js";
import type { SandboxTx } from "../db/client.js";
import { appointments, leads, type WebhookSubscriptionRow, webhookSubscriptions } from "../db/schema/index.js";
import { enqueueDelivery } from "./enqueue-delivery.js";

export interface RecordedEvent {
  id: string;
  companyId: string;
  event: string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
  occurredAt: string;
}

/**
 * Turns an outbox event into one pending delivery per interested subscription of its company, in the transaction
 * that records the event: the change, its event and its deliveries commit together. Rules (docs/decisions.md):
 * - the subscription asked for the event (§4.3);
 * - §4.2 rule 2 "other subscribers": an event caused by one of the subscription's `partnerKeyIds` is not sent to it;
 * - §1 limits of a view: a lead source or booking vendor naming its keys hears only about the leads / appointments
 *   those keys created; without keys it hears about the whole company (a company-wide integration).
 */
export function fanOut(tx: SandboxTx, clock: Clock, event: RecordedEvent): number {
  const subscriptions = tx
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.companyId, event.companyId))
    .all()
    .filter((s) => s.events.includes(event.event));
  if (subscriptions.length === 0) return 0;

  const subjectKey = subjectKeyOf(tx, event);
  // Only a booking made through the Inbound API is caused by a key; moves and sales events are made in the platform.
  const originKey = event.event === "appointment.booked" && event.data.change === "created" ? subjectKey : null;
  const body = JSON.stringify(buildEnvelope(event));
  let count = 0;
  for (const subscription of subscriptions) {
    if (!wants(subscription, originKey, subjectKey)) continue;
    enqueueDelivery(tx, clock, { subscriptionId: subscription.id, eventId: event.id, event: event.event, body });
    count++;
  }
  return count;
}

function wants(subscription: WebhookSubscriptionRow, originKey: string | null, subjectKey: string | null): boolean {
  const keys = subscription.partnerKeyIds;
  if (originKey !== null && keys.includes(originKey)) return false;
  const ownOnly = subscription.partnerType === "lead_source" || subscription.partnerType === "booking_vendor";
  if (ownOnly && keys.length > 0) return subjectKey !== null && keys.includes(subjectKey);
  return true;
}

/** The key that created what the event is about: the appointment's booking key, else the lead's creating key. */
function subjectKeyOf(tx: SandboxTx, event: RecordedEvent): string | null {
  const { appointmentId, leadId } = event.data;
  if (typeof appointmentId === "string") {
    const row = tx
      .select({ keyId: appointments.keyId })
      .from(appointments)
      .where(eq(appointments.id, appointmentId))
      .get();
    return row?.keyId ?? null;
  }
  if (typeof leadId === "string") {
    const row = tx.select({ keyId: leads.keyId }).from(leads).where(eq(leads.id, leadId)).get();
    return row?.keyId ?? null;
  }
  return null;
}
