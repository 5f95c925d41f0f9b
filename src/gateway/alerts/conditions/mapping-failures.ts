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
  const inWindow = await failures(scan, scan.nowMs - windowMs);
  // What each resource sent, asked only of those that failed often enough, and counted only as far as the share needs.
  for (const tally of inWindow.values()) {
    if (tally.failed >= t.minCount) tally.sent += await acceptedUpTo(scan, tally, scan.nowMs - windowMs, t.rate);
  }
  const live = scan.live("mapping_failures");
  const earliest = Math.min(...live.map((a) => Date.parse(a.openedAt) - windowMs));
  const sinceOpened = live.length > 0 ? await failures(scan, earliest) : inWindow;
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

/**
 * Per resource, what failed to map since `since` (ms): a connection's held payloads, a key's refused ones. A refused
 * payload was answered 422 and stored nowhere else: it counts as sent as well as failed; a held one is a submission,
 * counted as sent by `acceptedUpTo`.
 */
async function failures(scan: Scan, since: number): Promise<Map<string, Tally>> {
  const { ctx, companyId } = scan;
  const out = new Map<string, Tally>();
  for (const row of await ctx.submissions.heldSince(companyId, since)) {
    // A held payload is a hook connection's (docs/connections.md).
    if (row.connectionId === null) continue;
    out.set(`connection:${row.connectionId}`, {
      resourceType: "connection",
      resourceId: row.connectionId,
      sent: 0,
      failed: row.held,
    });
  }
  for (const row of await ctx.submissions.mappingFailuresSince(companyId, since)) {
    out.set(`vendor_key:${row.vendorKeyId}`, {
      resourceType: "vendor_key",
      resourceId: row.vendorKeyId,
      sent: row.failures,
      failed: row.failures,
    });
  }
  return out;
}

/**
 * The submissions `tally`'s resource accepted since `since`, counted up to the most for which its failures are still
 * `rate` of what it sent, and one more: past that the share is under the rate whatever the exact count (D-381).
 */
function acceptedUpTo(scan: Scan, tally: Tally, since: number, rate: number): Promise<number> {
  // A rate of 0 makes any share enough: the count is then the whole window's, for the message.
  const cap = rate > 0 ? Math.max(0, Math.floor(tally.failed / rate) - tally.sent) + 1 : Number.MAX_SAFE_INTEGER;
  const of =
    tally.resourceType === "connection" ? { connectionId: tally.resourceId } : { vendorKeyId: tally.resourceId };
  return scan.ctx.submissions.acceptedSince(scan.companyId, of, since, cap);
}
