import type { Clock } from "../clock.js";
import type { SandboxTx } from "../db/client.js";
import { events } from "../db/schema/index.js";
import { newId } from "../ids.js";
import { fanOut } from "../webhooks/fan-out.js";

export interface NewEvent {
  /** The company the event belongs to; its subscriptions hear it (§1 licensee: every event of its company). */
  companyId: string;
  /** A partner company the event is also addressed to: the installer company of an install.* event (§1, §5.6). */
  partnerCompanyId?: string | null;
  /** The API key whose request caused the event; subscriptions naming it do not get it back (§4.2 rule 2). */
  originKeyId?: string | null;
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
  const partnerCompanyId = input.partnerCompanyId ?? null;
  const originKeyId = input.originKeyId ?? null;
  tx.insert(events)
    .values({
      id,
      companyId: input.companyId,
      partnerCompanyId,
      originKeyId,
      event: input.event,
      resourceType: input.resource.type,
      resourceId: input.resource.id,
      resourceVersion: input.resource.version,
      data: input.data,
      occurredAt,
    })
    .run();
  fanOut(tx, clock, { ...input, id, partnerCompanyId, originKeyId, occurredAt });
  return id;
}
