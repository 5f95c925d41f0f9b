import type { PartnerType } from "../db/schema/index.js";
import { AUDIENCE, eventsOf } from "../events/audience.js";

export type { EventGroup } from "../events/audience.js";

export interface CatalogueEvent {
  name: string;
  group: string;
  /** §6.7 "When". */
  description: string;
}

/** §6.7: the event catalogue, as listed by `GET /partner-api/webhook-events` (§4.3); from the audience table. */
export const EVENT_CATALOGUE: readonly CatalogueEvent[] = AUDIENCE.map(({ name, group, description }) => ({
  name,
  group,
  description,
}));

/** §1 "a partner type limits which webhook event groups it can subscribe to": the events it has a view of. */
export const PARTNER_EVENTS: Readonly<Record<PartnerType, readonly string[]>> = {
  licensee: eventsOf("licensee"),
  lead_source: eventsOf("lead_source"),
  booking_vendor: eventsOf("booking_vendor"),
  installer_company: eventsOf("installer_company"),
  distributor: eventsOf("distributor"),
  financing: eventsOf("financing"),
  accounting: eventsOf("accounting"),
};

/** §6.1: the test delivery, sent on demand whatever the subscription's events. */
export const TEST_EVENT = "install.test";

const ALL = new Set(AUDIENCE.map((e) => e.name));

export function isCatalogueEvent(name: string): boolean {
  return ALL.has(name);
}
