import type { Finding } from "../finding.js";
import type { Finder } from "../scan.js";

/** What update-subscription.ts writes when the owner disables one: that is no alert. */
const BY_THE_OWNER = "disabled by the owner";

/**
 * A vendor's webhook subscription the gateway disabled after sustained failures or a 410 (D-341): the vendor hears
 * nothing more until it is enabled again. Its count is the deliveries waiting for it. Resolves when it is enabled or
 * deleted.
 */
export const findDisabledSubscriptions: Finder = async (scan) => {
  if (!scan.thresholds.subscription_disabled.enabled) return [];
  const { ctx, companyId } = scan;
  const findings: Finding[] = [];
  for (const s of await ctx.webhooks.subscriptions.listOfCompany(companyId)) {
    if (s.status !== "disabled" || s.disabledReason === BY_THE_OWNER) continue;
    const pending = (await ctx.webhooks.subscriptions.deliveryCounts(s.id)).pending ?? 0;
    findings.push({
      condition: "subscription_disabled",
      resourceType: "subscription",
      resourceId: s.id,
      count: pending,
      message:
        `The webhook subscription ${s.id} to ${s.url} was disabled: ${s.disabledReason ?? "its endpoint failed"}. ` +
        `${pending} deliveries wait. Ask the vendor to fix its endpoint, then enable the subscription.`,
      link: "/console/webhooks",
    });
  }
  return findings;
};
