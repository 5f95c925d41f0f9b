import { type Finder, MINUTE_MS } from "../scan.js";

/**
 * Forwarding slower than the owner's bound (D-341): the 95th percentile of accepted → forwarded (`forwardedAt −
 * createdAt`) of what was forwarded within the window, once at least `minCount` were. Its count is how many of those
 * took longer than the bound. Resolves when the window's percentile is back under it.
 */
export const findSlowForwarding: Finder = async (scan) => {
  const t = scan.thresholds.forwarding_latency;
  if (!t.enabled) return [];
  const since = new Date(scan.nowMs - t.windowMinutes * MINUTE_MS).toISOString();
  const rows = await scan.ctx.submissions.forwardedSince(scan.companyId, since);
  const latencies = rows
    .flatMap((r) => (r.forwardedAt === null ? [] : [Date.parse(r.forwardedAt) - Date.parse(r.createdAt)]))
    .sort((a, b) => a - b);
  if (latencies.length < t.minCount) return [];
  const p95 = latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.95) - 1)] ?? 0;
  const bound = t.p95Seconds * 1000;
  if (p95 <= bound) return [];
  const slow = latencies.filter((l) => l > bound).length;
  return [
    {
      condition: "forwarding_latency",
      resourceType: "company",
      resourceId: scan.companyId,
      count: slow,
      message:
        `Leads took ${Math.round(p95 / 1000)} s from accepted to forwarded (95th percentile of ${latencies.length} in ` +
        `the last ${t.windowMinutes} minutes), over your bound of ${t.p95Seconds} s. Look at the overview's headroom ` +
        "and at credentials waiting on the platform.",
      link: "/console",
    },
  ];
};
