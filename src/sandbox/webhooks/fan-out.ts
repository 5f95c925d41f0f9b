import { buildEnvelope } from "../../contract/webhook-envelope.js";
import type { Clock } from "../clock.js";
import type { SandboxTx } from "../db/client.js";
import { enqueueDelivery } from "./enqueue-delivery.js";
import { recipientsOf } from "./routing.js";

export interface RecordedEvent {
  id: string;
  companyId: string;
  partnerCompanyId: string | null;
  originKeyId: string | null;
  event: string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
  occurredAt: string;
}

/**
 * Turns an outbox event into one pending delivery per subscription that is to receive it (routing.ts decides which),
 * in the transaction that records the event: the change, its event and its deliveries commit together. The envelope
 * is serialised once; every delivery and every attempt sends those bytes (§6.3.4).
 */
export function fanOut(tx: SandboxTx, clock: Clock, event: RecordedEvent): number {
  const recipients = recipientsOf(tx, event);
  if (recipients.length === 0) return 0;
  const body = JSON.stringify(
    buildEnvelope({
      id: event.id,
      event: event.event,
      occurredAt: event.occurredAt,
      resource: event.resource,
      data: event.data,
    }),
  );
  for (const subscription of recipients) {
    enqueueDelivery(tx, clock, { subscriptionId: subscription.id, eventId: event.id, event: event.event, body });
  }
  return recipients.length;
}
