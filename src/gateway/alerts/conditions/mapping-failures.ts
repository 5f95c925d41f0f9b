import type { Finding } from "../finding.js";
import { type Finder, MINUTE_MS, named, type Scan } from "../scan.js";

interface Tally {
  resourceType: "vendor_key" | "connection";
  resourceId: string;
  sent: number;
  failed: number;
}

/**
 * A key's or a connection's payloads failing to map (D-341): a connection's held payloads (its profile could not map
 * them, or they lack what the platform requires) and a key's payloads a guardrail refused, as a share of what it sent
 * over the window — at least `minCount` of them, so one bad payload is not an alert. The count is what failed since
 * the window that opened the alert.
 */
export const findMappingFailures: Finder = async (scan) => {
  const t = scan.thresholds.mapping_failures;
  if (!t.enabled) return [];
  const windowMs = t.windowMinutes * MINUTE_MS;
  const inWindow = await tallies(scan, scan.nowMs - windowMs);
  const live = scan.live("mapping_failures");
  const earliest = Math.min(...live.map((a) => Date.parse(a.openedAt) - windowMs));
  const sinceOpened = live.length > 0 ? await tallies(scan, earliest) : inWindow;
  const [keys, connections] = [await scan.keys(), await scan.connections()];
  const findings: Finding[] = [];
  for (const [id, tally] of inWindow) {
    if (tally.failed < t.minCount || tally.failed / tally.sent < t.rate) continue;
    const isConnection = tally.resourceType === "connection";
    const what = isConnection
      ? named(
          "connection",
          connections.find((c) => c.id === tally.resourceId),
          tally.resourceId,
        )
      : named(
          "vendor key",
          keys.find((k) => k.id === tally.resourceId),
          tally.resourceId,
        );
    const count = sinceOpened.get(id)?.failed ?? tally.failed;
    findings.push({
      condition: "mapping_failures",
      resourceType: tally.resourceType,
      resourceId: tally.resourceId,
      count,
      message:
        `${tally.failed} of ${tally.sent} payloads from ${what} could not be mapped in the last ${t.windowMinutes} ` +
        `minutes (${count} since this began). The vendor may have changed its format: look at the failed payloads, ` +
        (isConnection
          ? "fix the profile, then re-map the held payloads."
          : "fix the profile, then ask the vendor to resend."),
      link: isConnection
        ? `/console/submissions?connectionId=${tally.resourceId}&status=held`
        : `/console/submissions?keyId=${tally.resourceId}`,
    });
  }
  return findings;
};

/** Per resource: what it sent since `since` (ms) and what of it failed to map. */
async function tallies(scan: Scan, since: number): Promise<Map<string, Tally>> {
  const { ctx, companyId } = scan;
  const out = new Map<string, Tally>();
  const add = (resourceType: Tally["resourceType"], resourceId: string, sent: number, failed: number) => {
    const key = `${resourceType}:${resourceId}`;
    const tally = out.get(key) ?? { resourceType, resourceId, sent: 0, failed: 0 };
    tally.sent += sent;
    tally.failed += failed;
    out.set(key, tally);
  };
  for (const row of await ctx.submissions.intakeSince(companyId, since)) {
    if (row.connectionId !== null) add("connection", row.connectionId, row.accepted, row.held);
    else add("vendor_key", row.vendorKeyId, row.accepted, row.held);
  }
  // A refused payload was answered 422 and stored nowhere else: it counts as sent and as failed.
  for (const row of await ctx.submissions.mappingFailuresSince(companyId, since)) {
    add("vendor_key", row.vendorKeyId, row.failures, row.failures);
  }
  return out;
}
