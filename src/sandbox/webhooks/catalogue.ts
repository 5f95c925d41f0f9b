import type { PartnerType } from "../db/schema/index.js";

export type EventGroup = "sales" | "install";

export interface CatalogueEvent {
  name: string;
  group: EventGroup;
  /** §6.7 "When". */
  description: string;
}

/** §6.7: the event catalogue, as listed by `GET /partner-api/webhook-events` (§4.3). */
export const EVENT_CATALOGUE: readonly CatalogueEvent[] = [
  { name: "quote.sent", group: "sales", description: "a quote was sent to the customer" },
  { name: "quote.viewed", group: "sales", description: "the customer opened the quote link" },
  { name: "quote.accepted", group: "sales", description: "the customer accepted an option" },
  { name: "project.stage_changed", group: "sales", description: "any pipeline stage change" },
  { name: "appointment.booked", group: "sales", description: "an appointment was created or moved" },
  { name: "deposit.paid", group: "sales", description: "customer deposit settled" },
  { name: "deposit.refunded", group: "sales", description: "customer deposit reversed" },
  { name: "invoice.issued", group: "sales", description: "an invoice was issued" },
  { name: "rebate.status_changed", group: "sales", description: "a rebate or incentive application changed state" },
  { name: "project.completed", group: "sales", description: "project closed out" },
  { name: "install.job_assigned", group: "install", description: "a job was assigned to the company" },
  { name: "install.job_unassigned", group: "install", description: "a job was removed from the company" },
  { name: "install.job_cancelled", group: "install", description: "the company cancelled the job" },
  { name: "install.schedule_changed", group: "install", description: "scheduled start or end changed, by either side" },
  { name: "install.readiness_changed", group: "install", description: "ready flag or blocker codes changed" },
  { name: "install.document_available", group: "install", description: "a document can be fetched" },
  { name: "install.status_changed", group: "install", description: "job status moved" },
  { name: "install.completion_received", group: "install", description: "the completion report was accepted" },
  {
    name: "install.scope_acknowledgement_required",
    group: "install",
    description: "the scope changed; acknowledgement of the new scope version is needed",
  },
  { name: "install.test", group: "install", description: "on-demand test delivery; safe to ignore in production" },
];

const ALL = EVENT_CATALOGUE.map((e) => e.name);

/**
 * §1 "a partner type limits which webhook event groups it can subscribe to", read from the table of partner types.
 * Accounting partners are not offered: their journal events are not named (§6.7).
 */
export const PARTNER_EVENTS: Readonly<Record<PartnerType, readonly string[]>> = {
  licensee: ALL,
  lead_source: ["quote.sent", "quote.accepted", "project.completed"],
  booking_vendor: ["appointment.booked"],
  installer_company: ALL.filter((name) => name.startsWith("install.")),
  distributor: ["project.completed"],
  financing: ["deposit.paid", "rebate.status_changed", "project.completed"],
};

/** §6.1: the test delivery, sent on demand whatever the subscription's events. */
export const TEST_EVENT = "install.test";

export function isCatalogueEvent(name: string): boolean {
  return ALL.includes(name);
}
