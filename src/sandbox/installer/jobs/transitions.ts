import type { JobStatus } from "../../db/schema/index.js";

/** §2.3: the statuses an installer posts. */
export const POSTED_STATUSES = ["ACKNOWLEDGED", "EN_ROUTE", "ON_SITE", "BLOCKED", "IN_PROGRESS", "COMPLETE"] as const;
export type PostedStatus = (typeof POSTED_STATUSES)[number];

/** §2.3: blockerCode values, required exactly when the status is BLOCKED. */
export const BLOCKER_CODES = [
  "CUSTOMER_UNAVAILABLE",
  "SITE_NOT_READY",
  "MATERIAL_MISSING",
  "EQUIPMENT_DAMAGED",
  "PERMIT",
  "WEATHER",
  "SAFETY",
  "OTHER",
] as const;

/** §3.1: the transition table, read row by row. COMPLETE and CANCELLED are terminal. */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly PostedStatus[]>> = {
  ASSIGNED: ["ACKNOWLEDGED", "BLOCKED"],
  ACKNOWLEDGED: ["EN_ROUTE", "ON_SITE", "BLOCKED"],
  EN_ROUTE: ["ON_SITE", "BLOCKED"],
  ON_SITE: ["IN_PROGRESS", "BLOCKED", "COMPLETE"],
  BLOCKED: ["ACKNOWLEDGED", "EN_ROUTE", "ON_SITE", "IN_PROGRESS"],
  IN_PROGRESS: ["BLOCKED", "COMPLETE"],
  COMPLETE: [],
  CANCELLED: [],
};

export function isTerminal(status: JobStatus): boolean {
  return status === "COMPLETE" || status === "CANCELLED";
}

/**
 * §3.1 rule 3 and docs/decisions.md: besides the table's moves, a status event that repeats the current status is
 * accepted while a scope change awaits acknowledgement — how an installer ON_SITE or IN_PROGRESS (or in any other
 * non-terminal status it can post) acknowledges without changing status.
 */
export function allowsStatusEvent(from: JobStatus, to: PostedStatus, awaitingScopeAck: boolean): boolean {
  if (TRANSITIONS[from].includes(to)) return true;
  return awaitingScopeAck && from === to;
}
