import type { Finding } from "../finding.js";
import { type Finder, MINUTE_MS, named } from "../scan.js";

/**
 * Refused proofs on a hook URL (D-341, D-349): forged requests, or a vendor still signing with a secret the owner
 * rotated. Opened when the connection's refusals within the window reach `count`; kept open while refusals go on (the
 * last within the window); its count is every refusal from the window that opened it on. Counted from the refusals per
 * minute the database keeps (whole minutes: the window's first minute counts whole), so an evaluator that starts, or
 * another process's, counts the same window as the one that ran before it.
 */
export const findProofFailures: Finder = async (scan) => {
  const t = scan.thresholds.proof_failures;
  if (!t.enabled) return [];
  const windowMs = t.windowMinutes * MINUTE_MS;
  const windowStart = scan.nowMs - windowMs;
  const live = new Map(scan.live("proof_failures").map((a) => [a.resourceId, a]));
  // An open alert counts from the start of the window that opened it.
  const countFrom = (openedAt: string | undefined) =>
    Math.floor((openedAt === undefined ? windowStart : Date.parse(openedAt) - windowMs) / MINUTE_MS);
  const earliest = Math.min(countFrom(undefined), ...[...live.values()].map((a) => countFrom(a.openedAt)));
  const minutes = await scan.ctx.connections.proofFailureMinutes(scan.companyId, earliest);
  const findings: Finding[] = [];
  for (const connection of await scan.connections()) {
    if (connection.revokedAt !== null) continue;
    const open = live.get(connection.id);
    const refusalsFrom = (minute: number) =>
      minutes.reduce((sum, m) => (m.connectionId === connection.id && m.minute >= minute ? sum + m.count : sum), 0);
    const recent = connection.lastProofFailureAt !== null && Date.parse(connection.lastProofFailureAt) >= windowStart;
    if (open ? !recent : refusalsFrom(countFrom(undefined)) < t.count) continue;
    const count = refusalsFrom(countFrom(open?.openedAt));
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
