import type { Finding } from "../finding.js";
import { type Finder, MINUTE_MS, named } from "../scan.js";

/** How many of a key's latest gaps its usual interval is learned from. */
const GAPS = 20;

/**
 * A vendor gone quiet (D-341): no submission for `multiple` times its usual interval — the median gap between its
 * latest submissions, learned from its own history (at least `minHistory` of them, else nothing is known of it) —
 * and never before `floorMinutes`. Per key, or per connection for a connection's own key. Its count is how many
 * usual intervals have passed. Resolves with the vendor's next submission.
 */
export const findQuietVendors: Finder = async (scan) => {
  const t = scan.thresholds.vendor_quiet;
  if (!t.enabled) return [];
  const connections = await scan.connections();
  const findings: Finding[] = [];
  for (const key of await scan.keys()) {
    if (key.revokedAt !== null) continue;
    const connection = connections.find((c) => c.vendorKeyId === key.id);
    if (connection?.revokedAt) continue;
    const times = (await scan.ctx.submissions.latestOfKey(key.id, Math.max(GAPS, t.minHistory) + 1)).map(Date.parse);
    if (times.length < Math.max(2, t.minHistory)) continue;
    const usual = median(times.slice(1).map((earlier, i) => (times[i] ?? earlier) - earlier));
    const last = times[0] ?? scan.nowMs;
    const silence = scan.nowMs - last;
    const limit = Math.max(t.floorMinutes * MINUTE_MS, t.multiple * usual);
    if (silence <= limit) continue;
    const what = connection ? named("connection", connection, connection.id) : named("vendor key", key, key.id);
    findings.push({
      condition: "vendor_quiet",
      resourceType: connection ? "connection" : "vendor_key",
      resourceId: connection?.id ?? key.id,
      count: usual > 0 ? Math.floor(silence / usual) : 0,
      message:
        `No submission from ${what} since ${new Date(last).toISOString()} (${minutes(silence)}); it usually sends ` +
        `every ${minutes(usual)}. Check with the vendor that its integration still runs and still has the URL or key.`,
      link: `/console/submissions?keyId=${key.id}`,
    });
  }
  return findings;
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function minutes(ms: number): string {
  const m = Math.round(ms / MINUTE_MS);
  return m < 120 ? `${m} minutes` : `${Math.round(m / 60)} hours`;
}
