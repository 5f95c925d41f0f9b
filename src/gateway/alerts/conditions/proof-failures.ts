import type { Finding } from "../finding.js";
import { type Finder, MINUTE_MS, named } from "../scan.js";

/**
 * Refused proofs on a hook URL (D-341): forged requests, or a vendor still signing with a secret the owner rotated.
 * Opened when the connection's counter grew by `count` within the window; kept open while refusals go on (the last
 * within the window); its count is every refusal since it opened.
 */
export const findProofFailures: Finder = async (scan) => {
  const t = scan.thresholds.proof_failures;
  if (!t.enabled) return [];
  const windowStart = scan.nowMs - t.windowMinutes * MINUTE_MS;
  const live = new Map(scan.live("proof_failures").map((a) => [a.resourceId, a]));
  const findings: Finding[] = [];
  for (const connection of await scan.connections()) {
    if (connection.revokedAt !== null) {
      scan.proofSamples.forget(connection.id);
      continue;
    }
    const { grown, sinceLast } = scan.proofSamples.record(
      connection.id,
      scan.nowMs,
      connection.proofFailures,
      windowStart,
      // A connection made within the window: every refusal it has is in the window. Else this evaluator counts from
      // its first read (D-341).
      Date.parse(connection.createdAt) >= windowStart ? 0 : connection.proofFailures,
    );
    const open = live.get(connection.id);
    const recent = connection.lastProofFailureAt !== null && Date.parse(connection.lastProofFailureAt) >= windowStart;
    if (open ? !recent : grown < t.count) continue;
    const count = open ? open.count + sinceLast : grown;
    findings.push({
      condition: "proof_failures",
      resourceType: "connection",
      resourceId: connection.id,
      count,
      message:
        `${count} requests to the hook URL of ${named("connection", connection, connection.id)} were refused for ` +
        `their proof (last: ${connection.lastProofFailure ?? "unknown"}). If the vendor's secret changed, paste the ` +
        "new one; if not, someone is posting forged requests: rotate the hook URL.",
      link: "/console/connections",
    });
  }
  return findings;
};
