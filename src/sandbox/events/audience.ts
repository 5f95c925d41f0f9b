import { SCHEMA_VERSION } from "../../contract/api-version.js";
import type { PartnerType } from "../db/schema/index.js";
import { PARTNER_TYPES } from "../db/schema/index.js";
import { bookingVendorBooked, installView, licenseeBooked, licenseeNote, testView } from "./views/other.js";
import type { View } from "./views/render.js";
import {
  accountingJournal,
  distributorCompleted,
  financingCompleted,
  financingDeposit,
  financingRebate,
  leadSourceSales,
  licenseeSales,
} from "./views/sales.js";

export type EventGroup = "sales" | "install" | "journal" | "project";

export interface EventAudience {
  name: string;
  group: EventGroup;
  /** §6.7 "When". */
  description: string;
  /** §1: the partner types that receive the event, each with the view that builds its data. No entry: never sent. */
  views: Partial<Record<PartnerType, View>>;
  /** §6.1, §9.4: the newest payload schema of the event; a subscription opts into it per event. */
  latestSchemaVersion: number;
}

const all = (view: View) => Object.fromEntries(PARTNER_TYPES.map((type) => [type, view]));
const install = (name: string, description: string): EventAudience => ({
  name,
  group: "install",
  description,
  views: { licensee: installView, installer_company: installView },
  latestSchemaVersion: SCHEMA_VERSION,
});
const sales = (name: string, description: string, views: Partial<Record<PartnerType, View>>) => ({
  name,
  group: "sales" as const,
  description,
  views: { licensee: licenseeSales, ...views },
  latestSchemaVersion: SCHEMA_VERSION,
});

/**
 * The one place that decides which partner types receive which event with which fields (§1 partner types, §6.7
 * catalogue). Subscriptions are refused events outside their type, routing sends nothing without a view, and the
 * table in docs/sandbox.md and the tests in test/sandbox/catalogue/ are checked against this list.
 */
export const AUDIENCE: readonly EventAudience[] = [
  sales("quote.sent", "a quote was sent to the customer", { lead_source: leadSourceSales }),
  sales("quote.viewed", "the customer opened the quote link", {}),
  sales("quote.accepted", "the customer accepted an option", { lead_source: leadSourceSales }),
  sales("project.stage_changed", "any pipeline stage change", {}),
  {
    name: "appointment.booked",
    group: "sales",
    description: "an appointment was created or moved",
    views: { licensee: licenseeBooked, booking_vendor: bookingVendorBooked },
    latestSchemaVersion: SCHEMA_VERSION,
  },
  // §9.4: deposit.paid has a schema version 2 (money in minor units, docs/decisions.md).
  { ...sales("deposit.paid", "customer deposit settled", { financing: financingDeposit }), latestSchemaVersion: 2 },
  sales("deposit.refunded", "customer deposit reversed", {}),
  sales("invoice.issued", "an invoice was issued", {}),
  sales("rebate.status_changed", "a rebate or incentive application changed state", { financing: financingRebate }),
  sales("project.completed", "project closed out", {
    lead_source: leadSourceSales,
    distributor: distributorCompleted,
    financing: financingCompleted,
  }),
  install("install.job_assigned", "a job was assigned to the company"),
  install("install.job_unassigned", "a job was removed from the company"),
  install("install.job_cancelled", "the company cancelled the job"),
  install("install.schedule_changed", "scheduled start or end changed, by either side"),
  install("install.readiness_changed", "ready flag or blocker codes changed"),
  install("install.document_available", "a document can be fetched"),
  install("install.status_changed", "job status moved"),
  install("install.completion_received", "the completion report was accepted"),
  install(
    "install.scope_acknowledgement_required",
    "the scope changed; acknowledgement of the new scope version is needed",
  ),
  {
    name: "install.test",
    group: "install",
    description: "on-demand test delivery; safe to ignore in production",
    views: all(testView),
    latestSchemaVersion: SCHEMA_VERSION,
  },
  {
    name: "journal.entry_posted",
    group: "journal",
    description: "a journal entry was posted for a deposit, a refund or an invoice",
    views: { accounting: accountingJournal },
    latestSchemaVersion: SCHEMA_VERSION,
  },
  {
    name: "project.note_added",
    group: "project",
    description: "a contractor appended a job note (§4.2)",
    views: { licensee: licenseeNote },
    latestSchemaVersion: SCHEMA_VERSION,
  },
];

const BY_NAME = new Map(AUDIENCE.map((entry) => [entry.name, entry]));

export function audienceOf(event: string): EventAudience | undefined {
  return BY_NAME.get(event);
}

/** The view a partner type gets of an event, or undefined when the type never receives it. */
export function viewOf(event: string, type: PartnerType): View | undefined {
  return BY_NAME.get(event)?.views[type];
}

/** The events a partner type may subscribe to: those it has a view of. */
export function eventsOf(type: PartnerType): string[] {
  return AUDIENCE.filter((entry) => entry.views[type] !== undefined).map((entry) => entry.name);
}

/**
 * The data one subscription gets: its type's view at the schema version it opted into for this event (§9.4: the
 * current one unless it opted in, never beyond what the event has).
 */
export function dataFor(
  event: string,
  type: PartnerType,
  schemaVersion: number,
  data: Record<string, unknown>,
): Record<string, unknown> | undefined {
  return viewOf(event, type)?.(data, schemaVersion);
}

/** The schema version a subscription receives an event at: its opt-in if the event has it, else the current one. */
export function schemaVersionFor(event: string, optIns: Record<string, number>): number {
  const wanted = optIns[event];
  const latest = BY_NAME.get(event)?.latestSchemaVersion ?? SCHEMA_VERSION;
  return wanted !== undefined && wanted <= latest ? wanted : SCHEMA_VERSION;
}
