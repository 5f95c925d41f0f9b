import { eq, inArray } from "drizzle-orm";
import type { SandboxTx } from "../db/client.js";
import {
  apiKeys,
  appointments,
  leads,
  partners,
  type WebhookSubscriptionRow,
  webhookSubscriptions,
} from "../db/schema/index.js";
import { viewOf } from "../events/audience.js";
import type { RecordedEvent } from "./recorded-event.js";

/**
 * Which subscriptions receive an event — every rule in one place (docs/decisions.md, "Sandbox webhooks", "Installer
 * API", "Sandbox event catalogue and partner types"):
 * - only subscriptions of the event's own company (§1 licensee: every event of its company) and of the partner
 *   company it is addressed to (the installer company a job was assigned to when it changed, §1, §5.6) — never
 *   another company's;
 * - the subscription asked for the event (§4.3), and its partner type has a view of it (§1, events/audience.ts);
 * - §4.2 rule 2 "other subscribers": an event caused by one of the partner's keys is not sent to it;
 * - §1 limits of a view: a lead source hears only about leads its keys sourced, a booking vendor only about the
 *   visits its keys booked, a distributor only where the company opted in.
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
    .filter((s) => s.events.includes(event.event) && viewOf(event.event, s.partnerType) !== undefined);
  if (candidates.length === 0) return [];

  const keysOf = partnerKeys(tx);
  let subject: string | null | undefined;
  const subjectKey = () => {
    if (subject === undefined) subject = subjectKeyOf(tx, event);
    return subject;
  };
  return candidates.filter((s) => {
    const own = keysOf(s);
    if (event.originKeyId !== null && own.includes(event.originKeyId)) return false;
    switch (s.partnerType) {
      case "lead_source":
      case "booking_vendor": {
        const key = subjectKey();
        return key !== null && own.includes(key);
      }
      case "distributor":
        return s.partnerId !== null && optedIn(tx, s.partnerId);
      default:
        return true;
    }
  });
}

/**
 * The partner's own keys: those issued to its partner record (read now, so a key issued later counts) and those the
 * subscription names. The company's own subscription names the keys of its own integration (the gateway's).
 */
function partnerKeys(tx: SandboxTx): (s: WebhookSubscriptionRow) => string[] {
  const cache = new Map<string, string[]>();
  return (s) => {
    if (s.partnerId === null) return s.partnerKeyIds;
    let keys = cache.get(s.partnerId);
    if (!keys) {
      keys = tx
        .select({ keyId: apiKeys.keyId })
        .from(apiKeys)
        .where(eq(apiKeys.partnerId, s.partnerId))
        .all()
        .map((k) => k.keyId);
      cache.set(s.partnerId, keys);
    }
    return [...keys, ...s.partnerKeyIds];
  };
}

function optedIn(tx: SandboxTx, partnerId: string): boolean {
  const row = tx
    .select({ optIn: partners.completedProjectsOptIn })
    .from(partners)
    .where(eq(partners.id, partnerId))
    .get();
  return row?.optIn === true;
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
