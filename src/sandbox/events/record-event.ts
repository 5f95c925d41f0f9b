import type { Clock } from "../clock.js";
import type { SandboxTx } from "../db/client.js";
import { events } from "../db/schema/index.js";
import { newId } from "../ids.js";
import { fanOut } from "../webhooks/fan-out.js";

export interface NewEvent {
  companyId: string;
  /** §6.7 catalogue name, e.g. `appointment.booked`. */
  event: string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
}

/**
 * Writes an event to the outbox inside the caller's transaction: the change and its event commit together, so a
 * booking is never without its `appointment.booked` (§4.2 rule 2) and an event never describes a rolled-back change.
 * The event's webhook deliveries (§6) are queued in the same transaction.
 */
export function recordEvent(tx: SandboxTx, clock: Clock, input: NewEvent): string {
  const id = newId("evt");
  const occurredAt = new Date(clock.now()).toISOString();
  tx.insert(events)
    .values({
      id,
      companyId: input.companyId,
      event: input.event,
      resourceType: input.resource.type,
      resourceId: input.resource.id,
      resourceVersion: input.resource.version,
      data: input.data,
      occurredAt,
    })
    .run();
  fanOut(tx, clock, { id, ...input, occurredAt });
  return id;
}
