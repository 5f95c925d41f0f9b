import type { GatewayContext } from "../context.js";
import { withoutPersonalData } from "./projections.js";

/** How an erasure found the person: their submissions, and the platform's ids of their leads and appointments. */
export interface PersonRefs {
  submissionIds: readonly string[];
  leadIds: readonly string[];
  appointmentIds: readonly string[];
}

export interface ErasedWebhookCopies {
  /** Envelopes stored for vendor deliveries, with the person's data removed. */
  webhookEvents: number;
  /** Deliveries still to be sent: they go with the person's data removed (docs/decisions.md). */
  pendingDeliveries: number;
  /** Platform events received, their stored bodies without the person's data. */
  platformEvents: number;
}

const REFS_PER_STEP = 200;
const PLATFORM_EVENTS_PER_STEP = 2_000;

/**
 * Removes a person from the company's webhook copies:
 * - the gateway's events about their submissions and appointments (found by the deliveries' dedupe keys,
 *   `submission:<id>:…` and `appointment:<id>:…`, on their unique index): the stored envelope loses the person's
 *   fields (an appointment's `customer`); a body an outbound profile mapped from it is dropped (a pending delivery
 *   maps it again from the redacted envelope at its next attempt); what an endpoint answered is dropped too, since an
 *   endpoint may echo what it was sent;
 * - the platform's events received about their leads or appointments, or mentioning them: the stored body loses the
 *   person's fields.
 * Pending deliveries are kept and sent without the person's data: the vendor still learns that the appointment was
 * booked or the submission ended, which its own records need; the person is no longer in what it gets.
 */
export async function eraseWebhookCopies(
  ctx: GatewayContext,
  companyId: string,
  refs: PersonRefs,
  mentions: (text: string) => boolean,
): Promise<ErasedWebhookCopies> {
  const erased: ErasedWebhookCopies = { webhookEvents: 0, pendingDeliveries: 0, platformEvents: 0 };
  const prefixes = [
    ...refs.submissionIds.map((id) => `submission:${id}:`),
    ...refs.appointmentIds.map((id) => `appointment:${id}:`),
  ];
  for (let i = 0; i < prefixes.length; i += REFS_PER_STEP) {
    const step = await ctx.webhooks.deliveries.eraseDeliveries(
      companyId,
      prefixes.slice(i, i + REFS_PER_STEP),
      (stored) => {
        const redacted = redactEnvelope(stored, mentions);
        return redacted === stored ? undefined : redacted;
      },
    );
    erased.webhookEvents += step.webhookEvents;
    erased.pendingDeliveries += step.pendingDeliveries;
    await new Promise((resolve) => setImmediate(resolve));
  }
  erased.platformEvents = await erasePlatformEvents(ctx, companyId, refs, mentions);
  return erased;
}

/** The company's received platform events, newest first on the (company, received_at) index, a chunk a step. */
async function erasePlatformEvents(
  ctx: GatewayContext,
  companyId: string,
  refs: PersonRefs,
  mentions: (text: string) => boolean,
): Promise<number> {
  const appointments = new Set(refs.appointmentIds);
  const leads = new Set(refs.leadIds);
  const about = (row: { resourceType: string; resourceId: string; body: string }) =>
    (row.resourceType === "appointment" && appointments.has(row.resourceId)) ||
    (row.resourceType === "lead" && leads.has(row.resourceId)) ||
    [...leads].some((id) => row.body.includes(id)) ||
    mentions(row.body);
  return await ctx.webhooks.platformEvents.rewriteBodies(companyId, PLATFORM_EVENTS_PER_STEP, (row) => {
    if (!about(row)) return undefined;
    const redacted = redactEnvelope(row.body, mentions);
    return redacted === row.body ? undefined : redacted;
  });
}

/**
 * The envelope's JSON without the person's fields in its data; with all of its data dropped if it still mentions
 * them (a field no projection names); nothing at all if even that does (or it is not an envelope).
 */
function redactEnvelope(text: string, mentions: (text: string) => boolean): string {
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return "{}";
  }
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) return "{}";
  const { data } = envelope as { data?: unknown };
  const fields =
    typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  let redacted = JSON.stringify({ ...envelope, data: withoutPersonalData(fields) });
  if (mentions(redacted)) redacted = JSON.stringify({ ...envelope, data: {} });
  if (mentions(redacted)) return "{}";
  return redacted === JSON.stringify(envelope) ? text : redacted;
}
