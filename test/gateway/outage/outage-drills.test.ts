import { afterEach, describe, expect, it } from "vitest";
import {
  brokenRules,
  type Drill,
  NO_BROKEN_RULE,
  outageLasting,
  sandboxFault,
  startDrill,
  waitFor,
} from "../../helpers/outage-drill.js";
import { postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";
import { redisForTests } from "../../helpers/redis.js";

/**
 * Short outages of the database (2 s cuts of every process's connection, through the fault proxy) at the points the
 * issue names, on PostgreSQL: nothing accepted is stranded, nothing is sent twice, every webhook owed is delivered
 * once, without a restart, and the last submission due goes within 10 s of the recovery plus its own retry delay
 * (printed). The 30 s cuts, every point and both drivers are `npm run test:faults` (test/faults/).
 */

const CUT_MS = 2_000;
/** docs/operations.md: the last due submission goes within this long of the recovery (plus its own retry delay). */
const RECOVERY_BOUND_MS = 10_000;

const pgUp = await postgresAvailable();
const redisUp = await redisForTests();

/** The drill's figures, for the reader of the test's output. */
function print(name: string, drill: Drill, report: Awaited<ReturnType<Drill["verify"]>>) {
  const lines = drill.outageLines();
  console.info(
    `[outage drill] ${name}: ${report.accepted} accepted, ${report.forwarded} forwarded, ${report.deliveries} webhooks; ` +
      `${report.dueAfterRecovery} due after the recovery, the last forwarded ${report.lastDueLagMs ?? "-"} ms after its due time; ` +
      `${drill.refusals.length} intake 503s; ${lines.length} outage log lines`,
  );
}

/** Each loop of each process logs an outage once when it begins and once when it ends: per cut, not per row or try. */
function expectLoggedOncePerLoop(drill: Drill, cuts: number) {
  const perLoop = new Map<string, number>();
  for (const line of drill.outageLines()) {
    if (!line.msg.includes("unavailable")) continue;
    const key = `${line.process} ${line.loop}`;
    perLoop.set(key, (perLoop.get(key) ?? 0) + 1);
  }
  // Positive control: the outage was seen and logged.
  expect(perLoop.size).toBeGreaterThan(0);
  expect([...perLoop].filter(([, n]) => n > cuts)).toEqual([]);
}

/** A describe per drill: each has a database of its own (its checks read the whole database). */
function drillSuite(name: string, skip: boolean, body: (database: { readonly url: string }) => void) {
  describe.skipIf(skip)(name, () => {
    body(usePostgresDatabase());
  });
}

let drill: Drill | undefined;
afterEach(async () => {
  await drill?.close();
  drill = undefined;
});

drillSuite("a 2 s outage of PostgreSQL, embedded driver (one process): a retry's re-admission", !pgUp, (database) => {
  it("a retry due during the outage is re-admitted after it, and vendors posting meanwhile get 503 with retry-after", async () => {
    drill = await startDrill({ databaseUrl: database.url, driver: "embedded", retry: { baseMs: 1_500, capMs: 1_500 } });
    const acme = await drill.addCompany("Acme Drill");
    // The case: first attempts answered 503 just before the database goes away.
    const failing = drill.sandbox.admin.faults.add(sandboxFault({ route: "POST /api/inbound/leads", errorRate: 1 }));
    await Promise.all(Array.from({ length: 6 }, (_, i) => drill?.postLead(acme, `retry${i}`)));
    await waitFor(async () => (await drill?.count("attempts >= 1 and status = 'queued'")) === 6, 10_000, "6 retries");
    drill.sandbox.admin.faults.remove(failing.id);

    const cut = drill.cutDatabase(CUT_MS);
    // Vendors post during the outage: refused with 503 and retry-after, accepted once it is over.
    const during = Promise.all([drill.postLead(acme, "during0"), drill.postBooking(acme, "during1")]);
    await cut;
    await during;
    await drill.drained(30_000);

    const report = await drill.verify();
    print("embedded, retry re-admission", drill, report);
    expect(brokenRules(report)).toEqual(NO_BROKEN_RULE);
    expect(report.forwarded).toBe(9);
    // Positive controls: the retries were due across the outage, and intake did refuse meanwhile.
    expect(await drill.count("attempts >= 2")).toBeGreaterThanOrEqual(6);
    expect(drill.refusals.length).toBeGreaterThan(0);
    expect(drill.refusals.every((r) => r.status === 503 && Number(r.retryAfter) > 0)).toBe(true);
    expect(report.lastDueLagMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expectLoggedOncePerLoop(drill, 1);
  });
});

drillSuite("a 2 s outage of PostgreSQL, embedded driver: between a send and its outcome", !pgUp, (database) => {
  it("sends answered while the database is away commit after it: none is sent again", async () => {
    drill = await startDrill({ databaseUrl: database.url, driver: "embedded", answerLatencyMs: 1_200 });
    const acme = await drill.addCompany("Acme Inflight");
    await Promise.all(Array.from({ length: 8 }, (_, i) => drill?.postLead(acme, `inflight${i}`)));
    await waitFor(async () => (await drill?.count("status = 'forwarding'")) === 8, 10_000, "8 sends in flight");
    // The platform has them all; their answers come during the cut.
    await drill.cutDatabase(CUT_MS);
    await drill.drained(30_000);

    const report = await drill.verify();
    print("embedded, between a send and its outcome", drill, report);
    expect(brokenRules(report)).toEqual(NO_BROKEN_RULE);
    expect(report.forwarded).toBe(8);
    expect(report.lastDueLagMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expectLoggedOncePerLoop(drill, 1);
  });
});

drillSuite(
  "a 2 s outage of PostgreSQL, BullMQ driver (two API processes, two workers)",
  !pgUp || !redisUp,
  (database) => {
    it("an outcome whose commit the outage broke is committed after it, and the submission is not sent again", async () => {
      drill = await startDrill({ databaseUrl: database.url, driver: "bullmq", apis: 2, workers: 2 });
      const acme = await drill.addCompany("Acme Cluster");
      const cutting = drill.duringNextOutcomeCommit(async () => {
        await Promise.all(drill?.pgProxies().map((p) => p.cut()) ?? []);
      });
      const posts = Promise.all([
        ...Array.from({ length: 4 }, (_, i) => drill?.postLead(acme, `commit${i}`)),
        drill.postBooking(acme, "commit-booking"),
      ]);
      await cutting;
      // The outage lasts CUT_MS from the COMMIT it broke.
      await outageLasting(CUT_MS);
      await drill.restoreDatabase();
      await posts;
      await drill.drained(45_000);

      const report = await drill.verify();
      print("bullmq, during the outcome's commit", drill, report);
      expect(brokenRules(report)).toEqual(NO_BROKEN_RULE);
      expect(report.forwarded).toBe(6);
      expect(report.lastDueLagMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    });
  },
);
