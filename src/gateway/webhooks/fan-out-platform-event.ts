import type { WebhookEnvelope } from "../../contract/webhook-envelope.js";
import type { TransactionContext } from "../storage/transaction.js";
import { LEAD_STAGE_EVENTS } from "./catalogue.js";
import { type Enqueued, enqueueVendorEvent } from "./enqueue.js";
import { appointmentViewOfPlatform, leadStageView } from "./projections.js";

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Who hears of a platform event (§1): appointment.booked goes to the vendor that booked the appointment through the
 * gateway, quote.sent / quote.accepted / project.completed to the lead source that created the lead; every other
 * event, and events about appointments and leads that did not come through the gateway, reach no vendor.
 * Runs inside the transaction that stores the event.
 */
export async function fanOutPlatformEvent(
  tx: TransactionContext,
  companyId: string,
  envelope: WebhookEnvelope,
  nowMs: number,
): Promise<Enqueued[]> {
  if (envelope.event === "appointment.booked") return appointmentChange(tx, companyId, envelope, nowMs);
  if (LEAD_STAGE_EVENTS.has(envelope.event)) return leadStage(tx, companyId, envelope, nowMs);
  return [];
}

async function appointmentChange(tx: TransactionContext, companyId: string, envelope: WebhookEnvelope, nowMs: number) {
  const appointmentId =
    envelope.resource.type === "appointment" ? envelope.resource.id : text(envelope.data.appointmentId);
  if (!appointmentId) return [];
  const bookedBy = await tx.webhooks.routing.bookerOf(companyId, appointmentId);
  if (bookedBy === undefined) return [];
  const data = appointmentViewOfPlatform(appointmentId, envelope.data);
  return enqueueVendorEvent(
    tx,
    {
      companyId,
      vendorKeyId: bookedBy,
      event: envelope.event,
      resource: { type: "appointment", id: appointmentId, version: envelope.resource.version },
      data,
      occurredAt: envelope.occurredAt,
      dedupeKey: `appointment:${appointmentId}:${changeIdentity(envelope, data)}`,
      sourceEventId: envelope.id,
    },
    nowMs,
  );
}

/**
 * The identity of an appointment change, so each reaches the vendor once: the creation is one change whoever reports
 * it (the gateway's own confirmation on 201, or the platform's event for it); a later change is its resource version
 * and times (a move back to earlier times is a new version, so still a new change).
 */
export function changeIdentity(envelope: WebhookEnvelope, data: Record<string, unknown>): string {
  const change = envelope.data.change;
  const creation = change === "created" || (change === undefined && envelope.resource.version <= 1);
  if (creation) return "created";
  return `v${envelope.resource.version}:${String(data.startsAt ?? "")}/${String(data.endsAt ?? "")}`;
}

async function leadStage(tx: TransactionContext, companyId: string, envelope: WebhookEnvelope, nowMs: number) {
  const leadId = text(envelope.data.leadId) ?? (envelope.resource.type === "lead" ? envelope.resource.id : undefined);
  if (!leadId) return [];
  const source = await tx.webhooks.routing.sourceOf(companyId, leadId);
  if (!source) return [];
  return enqueueVendorEvent(
    tx,
    {
      companyId,
      vendorKeyId: source,
      event: envelope.event,
      resource: { type: "lead", id: leadId, version: 1 },
      data: leadStageView(leadId, envelope.event),
      occurredAt: envelope.occurredAt,
      dedupeKey: `platform:${envelope.id}`,
      sourceEventId: envelope.id,
    },
    nowMs,
  );
}
