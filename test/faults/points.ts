import { expect } from "vitest";
import {
  brokenRules,
  type Drill,
  type DrillOptions,
  type DrillReport,
  NO_BROKEN_RULE,
  outageLasting,
  sandboxFault,
  startDrill,
  waitFor,
} from "../helpers/outage-drill.js";

/**
 * The points of a drain an outage of the database may hit (the list), each as a scenario: the drill's options
 * it needs, and what it does around a cut of `cutMs`. The same checks end every one (finish).
 */
export interface Point {
  name: string;
  options: Partial<DrillOptions>;
  run(drill: Drill, cutMs: number): Promise<void>;
}

/** docs/operations.md: the last due submission goes within this long of the recovery (plus its own retry delay). */
export const RECOVERY_BOUND_MS = 10_000;

export const POINTS: Point[] = [
  {
    name: "during intake",
    options: {},
    async run(drill, cutMs) {
      const acme = await drill.addCompany("Intake Co");
      let accepted = 0;
      const vendor = (async () => {
        for (let i = 0; i < 16; i++) {
          await drill.postLead(acme, `intake${i}`);
          if (i % 4 === 0) await drill.postBooking(acme, `intake-booking${i}`);
          accepted++;
        }
      })();
      await waitFor(() => accepted >= 4, 20_000, "the first posts accepted");
      await drill.cutDatabase(cutMs);
      await vendor;
      // Positive control: the vendor did meet the outage at intake.
      expect(drill.refusals.length).toBeGreaterThan(0);
      expect(drill.refusals.every((r) => r.status === 503 && Number(r.retryAfter) > 0)).toBe(true);
    },
  },
  {
    name: "between a send and its outcome",
    options: { answerLatencyMs: 1_500 },
    async run(drill, cutMs) {
      const acme = await drill.addCompany("Inflight Co");
      await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => drill.postLead(acme, `inflight${i}`)),
        drill.postBooking(acme, "inflight-booking"),
      ]);
      await waitFor(async () => (await drill.count("status = 'forwarding'")) >= 5, 20_000, "sends in flight");
      await drill.cutDatabase(cutMs);
    },
  },
  {
    name: "during the outcome's commit",
    options: {},
    async run(drill, cutMs) {
      const acme = await drill.addCompany("Commit Co");
      const cutting = drill.duringNextOutcomeCommit(async () => {
        await Promise.all(drill.pgProxies().map((p) => p.cut()));
      });
      const posts = Promise.all([
        ...Array.from({ length: 8 }, (_, i) => drill.postLead(acme, `commit${i}`)),
        drill.postBooking(acme, "commit-booking"),
      ]);
      await cutting;
      await outageLasting(cutMs);
      await drill.restoreDatabase();
      await posts;
    },
  },
  {
    name: "during webhook delivery",
    options: { receiverLatencyMs: 1_500 },
    async run(drill, cutMs) {
      const acme = await drill.addCompany("Webhook Co");
      await Promise.all(Array.from({ length: 10 }, (_, i) => drill.postLead(acme, `webhook${i}`)));
      await waitFor(() => drill.receiver.inFlight() >= 3, 20_000, "webhook deliveries in flight");
      await drill.cutDatabase(cutMs);
    },
  },
  {
    name: "during a retry's re-admission",
    options: { retry: { baseMs: 2_000, capMs: 2_000 } },
    async run(drill, cutMs) {
      const acme = await drill.addCompany("Retry Co");
      // The case: first attempts answered 503 just before the database goes away.
      const failing = drill.sandbox.admin.faults.add(sandboxFault({ route: "POST /api/inbound/leads", errorRate: 1 }));
      await Promise.all(Array.from({ length: 8 }, (_, i) => drill.postLead(acme, `retry${i}`)));
      await waitFor(async () => (await drill.count("attempts >= 1 and status = 'queued'")) === 8, 20_000, "retries");
      drill.sandbox.admin.faults.remove(failing.id);
      await drill.cutDatabase(cutMs);
      // Positive control: each was retried, after the outage (the fault gone, the retry succeeds).
      await waitFor(async () => (await drill.count("attempts >= 2")) === 8, 30_000, "the retries sent");
    },
  },
];

/**
 * Waits for the drain, checks every rule and (unless told not to: the platform's own faults go on after the recovery)
 * the recovery bound, and prints the figures.
 */
export async function finish(
  drill: Drill,
  name: string,
  timeoutMs: number,
  options: { recoveryBound?: boolean } = {},
): Promise<DrillReport> {
  await drill.drained(timeoutMs);
  const report = await drill.verify();
  const logged = drill.outageLines().filter((l) => l.msg.includes("unavailable")).length;
  console.info(
    `[outage drill] ${name}: ${report.accepted} accepted, ${report.forwarded} forwarded once, ${report.deliveries} webhooks ` +
      `delivered once; ${report.dueAfterRecovery} due after the recovery, the last forwarded ${report.lastDueLagMs ?? "-"} ms ` +
      `after its due time (its attempts: ${report.lastDueAttempts.join(", ") || "-"}); ${drill.refusals.length} intake 503s; ` +
      `${logged} outage lines logged`,
  );
  expect(brokenRules(report)).toEqual(NO_BROKEN_RULE);
  expect(report.forwarded).toBe(report.accepted);
  if (options.recoveryBound !== false && report.lastDueLagMs !== undefined) {
    expect(report.lastDueLagMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  }
  return report;
}

export { startDrill };
