import { eq, inArray } from "drizzle-orm";
import type { SandboxTx } from "../db/client.js";
import { appointments, leads, type WebhookSubscriptionRow, webhookSubscriptions } from "../db/schema/index.js";
import type { RecordedEvent } from "./fan-out.js";

/**
 * Which subscriptions receive an event — every rule in one place (docs/decisions.md, "Sandbox webhooks" and
 * "Installer API"):
 * - only subscriptions of the event's own company (§1 licensee: every event of its company) and of the partner
 *   company it is addressed to (the installer company a job was assigned to when it changed, §1, §5.6) — never
 *   another company's;
 * - the subscription asked for the event (§4.3);
 * - §4.2 rule 2 "other subscribers": an event caused by one of the subscription's `partnerKeyIds` is not sent to it;
 * - §1 limits of a view: a lead source or booking vendor naming its keys hears only about the leads / appointments
 *   those keys created; without keys it hears about the whole company (a company-wide integration).
 */
export function recipientsOf(tx: SandboxTx, event: RecordedEvent): WebhookSubscriptionRow[] {
  const companies = event.partnerCompanyId ? [event.companyId, event.partnerCompanyId] : [event.companyId];
  const candidates = tx
    .select()
    .from(webhookSubscriptions)
    .where(
      companies.length === 1
        ? eq(webhookSubscriptions.companyId, event.companyId)
        : inArray(webhookSubscriptions.companyId, companies),
    )
    .all()
    .filter((s) => s.events.includes(event.event) && !causedBy(s, event.originKeyId));
  if (candidates.length === 0) return [];

  const ownOnly = candidates.some(isOwnOnly);
  const subjectKey = ownOnly ? subjectKeyOf(tx, event) : null;
  return candidates.filter((s) => !isOwnOnly(s) || (subjectKey !== null && s.partnerKeyIds.includes(subjectKey)));
}

function causedBy(subscription: WebhookSubscriptionRow, originKeyId: string | null): boolean {
  return originKeyId !== null && subscription.partnerKeyIds.includes(originKeyId);
}

/** A lead source or booking vendor that named its keys hears only about what those keys created. */
function isOwnOnly(subscription: WebhookSubscriptionRow): boolean {
  const type = subscription.partnerType;
  return (type === "lead_source" || type === "booking_vendor") && subscription.partnerKeyIds.length > 0;
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
