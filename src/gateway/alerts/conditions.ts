import { ALERT_CONDITIONS, ALERT_RESOURCE_TYPES } from "../../db/schema/alerts.js";

/**
 * The conditions an alert is opened for (docs/alerts.md, D-340), each computed from state the gateway keeps already:
 * its severity, the resource it is found on, and its thresholds' defaults — the owner's to change
 * (`PUT /owner/v1/alert-settings`).
 */
export const CONDITIONS = ALERT_CONDITIONS;

export type Condition = (typeof CONDITIONS)[number];

export const SEVERITIES = ["warning", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const RESOURCE_TYPES = ALERT_RESOURCE_TYPES;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/**
 * Critical: leads are not reaching the platform (payloads not mapped, the dead letter growing, the credential the
 * platform refused). Warning: something to look at before it costs leads.
 */
export const SEVERITY_OF: Readonly<Record<Condition, Severity>> = {
  mapping_failures: "critical",
  dead_letter_growth: "critical",
  credential_paused: "critical",
  proof_failures: "warning",
  subscription_disabled: "warning",
  vendor_quiet: "warning",
  forwarding_latency: "warning",
};

/** Each condition's thresholds (D-341). A condition whose `enabled` is false is never opened (and resolves). */
export interface Thresholds {
  /** Held or refused payloads of a key or connection over a window, as a share of what it sent, and at least so many. */
  mapping_failures: { enabled: boolean; rate: number; minCount: number; windowMinutes: number };
  /** Requests to a hook URL refused for their proof (forged, or a rotated secret) within a window. */
  proof_failures: { enabled: boolean; count: number; windowMinutes: number };
  /** Submissions entering the dead letter within a window. */
  dead_letter_growth: { enabled: boolean; count: number; windowMinutes: number };
  credential_paused: { enabled: boolean };
  subscription_disabled: { enabled: boolean };
  /**
   * No submission for `multiple` times the vendor's usual interval (the median of its last gaps, learned from at
   * least `minHistory` submissions), and never before `floorMinutes`.
   */
  vendor_quiet: { enabled: boolean; multiple: number; floorMinutes: number; minHistory: number };
  /** The 95th percentile of accepted → forwarded over a window above `p95Seconds`, from at least `minCount` sends. */
  forwarding_latency: { enabled: boolean; p95Seconds: number; minCount: number; windowMinutes: number };
}

export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = {
  mapping_failures: { enabled: true, rate: 0.2, minCount: 5, windowMinutes: 15 },
  proof_failures: { enabled: true, count: 10, windowMinutes: 15 },
  dead_letter_growth: { enabled: true, count: 10, windowMinutes: 60 },
  credential_paused: { enabled: true },
  subscription_disabled: { enabled: true },
  vendor_quiet: { enabled: true, multiple: 4, floorMinutes: 60, minHistory: 10 },
  forwarding_latency: { enabled: true, p95Seconds: 300, minCount: 5, windowMinutes: 15 },
};
