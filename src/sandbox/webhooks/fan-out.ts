import { buildEnvelope } from "../../contract/webhook-envelope.js";
import type { Clock } from "../clock.js";
import type { SandboxTx } from "../db/client.js";
import { dataFor, schemaVersionFor } from "../events/audience.js";
import { enqueueDelivery } from "./enqueue-delivery.js";
import type { RecordedEvent } from "./recorded-event.js";
import { recipientsOf } from "./routing.js";

export type { RecordedEvent } from "./recorded-event.js";

/**
 * Turns an outbox event into one pending delivery per subscription that is to receive it (routing.ts decides which),
 * in the transaction that records the event: the change, its event and its deliveries commit together. Each
 * recipient's `data` is its partner type's view at the schema version it opted into (events/audience.ts); the
 * envelope is serialised once per view and every delivery and attempt sends those bytes (§6.3.4).
 */
export function fanOut(tx: SandboxTx, clock: Clock, event: RecordedEvent): number {
  const recipients = recipientsOf(tx, event);
  const bodies = new Map<string, string>();
  let queued = 0;
  for (const subscription of recipients) {
    const schemaVersion = schemaVersionFor(event.event, subscription.schemaVersions);
    const cacheKey = `${subscription.partnerType}:${schemaVersion}`;
    let body = bodies.get(cacheKey);
    if (body === undefined) {
      const data = dataFor(event.event, subscription.partnerType, schemaVersion, event.data);
      if (data === undefined) continue;
      body = JSON.stringify(
        buildEnvelope({
          id: event.id,
          event: event.event,
          occurredAt: event.occurredAt,
          resource: event.resource,
          data,
          schemaVersion,
        }),
      );
      bodies.set(cacheKey, body);
    }
    enqueueDelivery(tx, clock, { subscriptionId: subscription.id, eventId: event.id, event: event.event, body });
    queued++;
  }
  return queued;
}
