import type { Finder } from "../scan.js";
import { named } from "../scan.js";

/**
 * An upstream credential the platform refused (401/403), which forwarding paused (D-341): nothing sent with it
 * reaches the platform until the owner rotates or resumes it. Resolves when it is active again.
 */
export const findPausedCredentials: Finder = async (scan) => {
  if (!scan.thresholds.credential_paused.enabled) return [];
  const credentials = await scan.ctx.credentials.listOfCompany(scan.companyId);
  return credentials
    .filter((c) => c.status === "paused")
    .map((c) => ({
      condition: "credential_paused" as const,
      resourceType: "credential" as const,
      resourceId: c.id,
      count: 1,
      message:
        `The platform refused ${named("upstream credential", c, c.id)} (${c.pausedReason ?? "paused"}): its ` +
        "submissions wait. Rotate it with a key the platform takes, or resume it once the platform takes it again.",
      link: "/console/credentials",
    }));
};
