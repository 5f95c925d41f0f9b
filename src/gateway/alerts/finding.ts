import type { Condition, ResourceType } from "./conditions.js";

/** A condition found on a resource by one evaluation: what an alert is opened or kept open for. */
export interface Finding {
  condition: Condition;
  resourceType: ResourceType;
  resourceId: string;
  /** How many of what the condition counts, since the alert opened (or in the window that opened it). */
  count: number;
  /** What happened and what to do, for the owner. */
  message: string;
  /** The console page to act on (a path below the gateway's public URL). */
  link: string;
}

/** The key of an alert's condition and resource: one live alert per key (D-342). */
export function findingKey(f: { condition: string; resourceType: string; resourceId: string }): string {
  return `${f.condition}|${f.resourceType}|${f.resourceId}`;
}
