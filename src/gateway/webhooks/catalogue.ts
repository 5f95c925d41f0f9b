import type { PartnerType } from "../storage/vendor-keys/index.js";

/**
 * What each partner type may subscribe to (§1: "a partner type limits which webhook event groups it can subscribe
 * to"). A lead source hears how its own submissions ended and, for leads it created, the sales stages; a booking
 * vendor hears about the appointments it booked (and its own failed submissions). Nothing else reaches a vendor.
 */
export const EVENTS_BY_PARTNER_TYPE: Readonly<Record<PartnerType, readonly string[]>> = {
  lead_source: ["submission.forwarded", "submission.failed", "quote.sent", "quote.accepted", "project.completed"],
  booking_vendor: ["appointment.booked", "submission.failed"],
};

/** The on-demand test delivery (§6.1: "a test delivery uses type `subscription`"); never subscribed, always allowed. */
export const TEST_EVENT = "webhook.test";

/** Platform sales events relayed to the lead's source, as `{leadId, stage}` (§1: "lead id and stage, never price"). */
export const LEAD_STAGE_EVENTS: ReadonlySet<string> = new Set(["quote.sent", "quote.accepted", "project.completed"]);

export function allowedEvents(partnerType: PartnerType): readonly string[] {
  return EVENTS_BY_PARTNER_TYPE[partnerType];
}
