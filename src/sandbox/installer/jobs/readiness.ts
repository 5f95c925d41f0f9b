import type { InstallJobRow } from "../../db/schema/index.js";

/** §2.1: present while a scope change awaits acknowledgement (§3.1 rule 3). */
export const SCOPE_ACK_REQUIRED = "SCOPE_ACK_REQUIRED";

/**
 * Blocker codes the company may set (§2.1: the full list is not shown; §6.7 names permits, equipment and deposit).
 * SCOPE_ACK_REQUIRED is not among them: the platform sets it on a scope change and the installer's next status event
 * clears it. Clients must accept codes they do not know.
 */
export const COMPANY_BLOCKER_CODES = [
  "PERMIT_PENDING",
  "EQUIPMENT_PENDING",
  "DEPOSIT_PENDING",
  "SITE_SURVEY_PENDING",
] as const;

export function scopeAckRequired(job: Pick<InstallJobRow, "scopeVersion" | "acknowledgedScopeVersion">): boolean {
  return job.scopeVersion > job.acknowledgedScopeVersion;
}

/** §2.1 readiness: the company's blockers, then SCOPE_ACK_REQUIRED while it applies; ready when there are none. */
export function readinessOf(job: Pick<InstallJobRow, "blockerCodes" | "scopeVersion" | "acknowledgedScopeVersion">): {
  ready: boolean;
  blockerCodes: string[];
} {
  const blockerCodes = scopeAckRequired(job) ? [...job.blockerCodes, SCOPE_ACK_REQUIRED] : [...job.blockerCodes];
  return { ready: blockerCodes.length === 0, blockerCodes };
}
