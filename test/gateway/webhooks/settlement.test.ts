import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { submissions, webhookDeliveries } from "../../../src/db/schema/index.js";
import type { SqliteDatabase } from "../../../src/db/sqlite.js";
import { createGateway } from "../../../src/gateway/create-gateway.js";
import { createVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import { onSubmissionSettled } from "../../../src/gateway/webhooks/index.js";
import { createSubscription } from "../../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { createLogger } from "../../../src/log.js";
import { type DriverName, lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { postJson, seedCompany, TEST_PASSWORD_COST } from "../../helpers/gateway.js";
import { redisForTests } from "../../helpers/redis.js";
import { seedSubmissions } from "../../helpers/seed-submissions.js";
import { sqliteOf } from "../../helpers/sqlite-of.js";
import { type Receiver, startReceiver } from "./support.js";

/**
 * §6.4.2 "retried and eventually dead-lettered" presumes the delivery exists: a settled submission's webhook deliveries
 * are written in the transaction of its outcome (docs/decisions.md, "Settlements recorded with the outcome"), and a
 * start-up repair records what an older version settled without them.
 */

/**
 * A database fault for one statement: the first insert of a webhook delivery fails, as a full disk or a lost lock
 * would fail it. A trigger calling a function of the test's; every connection that may insert one gets the function.
 */
async function failFirstDeliveryInsert(connections: SqliteDatabase[]): Promise<{ fired: () => boolean }> {
  let armed = true;
  let fired = false;
  for (const sqlite of connections) {
    sqlite.function("pg_test_fault", () => {
      if (!armed) return 0;
      armed = false;
      fired = true;
      return 1;
    });
  }
  connections[0]?.exec(`CREATE TRIGGER pg_test_fail_delivery BEFORE INSERT ON webhook_deliveries
    WHEN pg_test_fault() = 1 BEGIN SELECT RAISE(ABORT, 'injected fault: disk I/O error'); END`);
  return { fired: () => fired };
}

const redis = await redisForTests();
const drivers: { driver: DriverName; skip: boolean }[] = [
  { driver: "embedded", skip: false },
  { driver: "bullmq", skip: !redis },
];

for (const { driver, skip } of drivers) {
  describe.skipIf(skip)(`§6.4 a settled submission's webhooks commit with its outcome (${driver} driver)`, () => {
    let rig: Rig;
    let receiver: Receiver;
    beforeAll(async () => {
      rig = await startRig({ perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000, driver });
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await rig.close();
      await receiver.close();
    });

    it("a database fault on the delivery rolls the outcome back; the submission goes again and gets exactly one", async () => {
      const { ctx } = rig.gateway;
      const company = await rig.addCompany(`Atomic ${driver}`, 1);
      const source = await createVendorKey({
        ctx,
        companyId: company.gatewayCompanyId,
        input: {
          name: "marketplace",
          partnerType: "lead_source",
          scopes: ["leads:write"],
          credentialId: company.credentials[0]?.id ?? "",
        },
      });
      const subscription = await createSubscription({
        ctx,
        companyId: company.gatewayCompanyId,
        input: { vendorKeyId: source.id, url: receiver.url, events: ["submission.forwarded"] },
      });
      const fault = await failFirstDeliveryInsert([
        sqliteOf(rig.gateway).sqlite,
        ...rig.workers.map((w) => sqliteOf(w).sqlite),
      ]);

      const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": source.key });
      const { submissionId } = (await res.json()) as { submissionId: string };
      const forwarded = await until(() => {
        const row = sqliteOf(rig.gateway).db.select().from(submissions).where(eq(submissions.id, submissionId)).get();
        return row?.status === "forwarded" ? row : undefined;
      }, 20_000);
      expect(fault.fired()).toBe(true);
      expect(forwarded.settlementRecordedAt).not.toBeNull();
      const deliveries = sqliteOf(rig.gateway)
        .db.select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.subscriptionId, subscription.id))
        .all();
      expect(deliveries.map((d) => [d.event, d.dedupeKey])).toEqual([
        ["submission.forwarded", `submission:${submissionId}:forwarded`],
      ]);
      await until(() => receiver.received.length === 1, 10_000);
    });
  });
}

describe("§6.4 the start-up repair records what an older version settled without its deliveries", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it("enqueues each owed delivery once, only to subscriptions that existed, nothing for the too old", async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), "pg-repair-")), "gateway.db");
    const masterKey = randomBytes(32).toString("hex");
    const open = async () =>
      await createGateway({
        databasePath,
        masterKey,
        log: createLogger({ level: "silent" }),
        engine: { poolSize: 1 },
        settings: { passwordCost: TEST_PASSWORD_COST, webhookLoopbackPorts: "any" },
      });
    const receiver = await startReceiver();
    closers.push(() => receiver.close());

    const first = await open();
    const { ctx } = first;
    const acme = await seedCompany(first, "Repair");
    const key = await acme.issueKey({ partnerType: "lead_source" });
    const subscribedAt = Date.now();
    const subscription = await createSubscription({
      ctx,
      companyId: acme.company.id,
      input: { vendorKeyId: key.id, url: receiver.url, events: ["submission.forwarded", "submission.failed"] },
    });
    const base = { companyId: acme.company.id, vendorKeyId: key.id, credentialId: acme.credential.id };
    const day = 86_400_000;
    // As a version that enqueued webhooks in a second transaction left them after a crash: settled, none recorded.
    const [forwarded, failed, beforeSubscribing, tooOld] = await seedSubmissions(first, [
      { ...base, at: subscribedAt + 1_000, status: "forwarded" },
      { ...base, at: subscribedAt + 2_000, status: "failed" },
      { ...base, at: subscribedAt - 60_000, status: "forwarded" },
      { ...base, at: subscribedAt - (ctx.settings.retentionDays + 1) * day, status: "forwarded" },
    ]);
    // One of them did get its delivery before the crash (marked nowhere then): the repair must not make a second.
    const row = sqliteOf(first)
      .db.select()
      .from(submissions)
      .where(eq(submissions.id, forwarded ?? ""))
      .get();
    if (row) await onSubmissionSettled(ctx, row);
    sqliteOf(first)
      .sqlite.prepare("UPDATE submissions SET settlement_recorded_at = NULL WHERE id IN (?, ?, ?, ?)")
      .run(forwarded, failed, beforeSubscribing, tooOld);
    await first.close();

    const second = await open();
    closers.push(() => second.close());
    const owed = (id: string | undefined) =>
      sqliteOf(second)
        .db.select({ dedupeKey: webhookDeliveries.dedupeKey })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.subscriptionId, subscription.id))
        .all()
        .filter((d) => d.dedupeKey.startsWith(`submission:${id}:`))
        .map((d) => d.dedupeKey);
    expect(owed(forwarded)).toEqual([`submission:${forwarded}:forwarded`]);
    expect(owed(failed)).toEqual([`submission:${failed}:failed`]);
    expect(owed(beforeSubscribing)).toEqual([]);
    expect(owed(tooOld)).toEqual([]);
    const unrecorded = sqliteOf(second)
      .sqlite.prepare(
        "SELECT count(*) AS n FROM submissions WHERE status IN ('forwarded', 'failed') AND settlement_recorded_at IS NULL",
      )
      .get();
    expect(unrecorded).toEqual({ n: 0 });
    await until(() => receiver.received.length === 2, 10_000);
    await second.close();
    closers.pop();

    // Idempotent: a third start finds nothing left, and the dedupe keys would have refused a second delivery anyway.
    const third = await open();
    closers.push(() => third.close());
    const all = sqliteOf(third).db.select().from(webhookDeliveries).all();
    expect(all).toHaveLength(2);
  });
});
