import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../../src/gateway/create-gateway.js";
import { createVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import { onSubmissionSettled } from "../../../src/gateway/webhooks/index.js";
import { createSubscription } from "../../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { newId } from "../../../src/ids.js";
import { createLogger } from "../../../src/log.js";
import { type DriverName, lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { postJson, seedCompany, TEST_PASSWORD_COST } from "../../helpers/gateway.js";
import { redisForTests } from "../../helpers/redis.js";
import { testStorage } from "../../helpers/test-store.js";
import { deliveriesOf, failInserts, type Receiver, rowCount, settledSubmission, startReceiver } from "./support.js";

/**
 * §6.4.2 "retried and eventually dead-lettered" presumes the delivery exists: a settled submission's webhook deliveries
 * are written in the transaction of its outcome (docs/decisions.md, "Settlements recorded with the outcome"), and a
 * start-up repair records what an older version settled without them.
 */

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
      // A database fault for one statement: the first insert of a webhook delivery fails, as a full disk or a lost
      // lock would fail it, on whichever connection (the gateway's or a worker's) makes it.
      const fault = await failInserts(rig.gateway, "webhook_deliveries", { once: true, also: rig.workers });

      const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": source.key });
      const { submissionId } = (await res.json()) as { submissionId: string };
      const forwarded = await until(async () => {
        const row = await ctx.submissions.get(submissionId);
        return row?.status === "forwarded" ? row : undefined;
      }, 20_000);
      expect(await fault.fired()).toBe(true);
      expect(forwarded.settlementRecordedAt).not.toBeNull();
      const deliveries = await deliveriesOf(rig.gateway, subscription.id);
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
    // TEST_STORE=postgres: the path's own database, the same one at each start (test-store.ts).
    const storage = await testStorage(databasePath);
    const open = async () =>
      await createGateway({
        ...storage,
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
    const day = 86_400_000;
    // As a version that enqueued webhooks in a second transaction left them after a crash: settled, none recorded.
    const seed = async (at: number, status: "forwarded" | "failed") => {
      const settledAt = at + 150;
      const row = settledSubmission(acme.company.id, key.id, {
        id: newId("sub", at),
        credentialId: acme.credential.id,
        kind: "lead",
        status: "queued",
        createdAt: new Date(at).toISOString(),
      });
      await ctx.submissions.insert(row);
      const settled = await ctx.submissions.settle(row.id, settledAt, {
        status,
        attempts: 1,
        forwardedAt: status === "forwarded" ? new Date(settledAt).toISOString() : null,
        upstreamStatus: status === "forwarded" ? 201 : 400,
        lastError: status === "failed" ? "upstream 400: seeded failure" : null,
      });
      if (settled?.status !== status) throw new Error(`seeding ${row.id} failed`);
      return settled;
    };
    const forwarded = await seed(subscribedAt + 1_000, "forwarded");
    const failed = await seed(subscribedAt + 2_000, "failed");
    const beforeSubscribing = await seed(subscribedAt - 60_000, "forwarded");
    const tooOld = await seed(subscribedAt - (ctx.settings.retentionDays + 1) * day, "forwarded");
    // One of them did get its delivery before the crash (marked nowhere then): the repair must not make a second.
    await onSubmissionSettled(ctx, forwarded);
    await ctx.submissions.settle(forwarded.id, Date.parse(forwarded.updatedAt), { settlementRecordedAt: null });
    expect((await ctx.submissions.settlementsOwed(10)).map((r) => r.id).sort()).toEqual(
      [forwarded.id, failed.id, beforeSubscribing.id, tooOld.id].sort(),
    );
    await first.close();

    const second = await open();
    closers.push(() => second.close());
    const owed = async (row: { id: string }) =>
      (await deliveriesOf(second, subscription.id))
        .filter((d) => d.dedupeKey.startsWith(`submission:${row.id}:`))
        .map((d) => d.dedupeKey);
    expect(await owed(forwarded)).toEqual([`submission:${forwarded.id}:forwarded`]);
    expect(await owed(failed)).toEqual([`submission:${failed.id}:failed`]);
    expect(await owed(beforeSubscribing)).toEqual([]);
    expect(await owed(tooOld)).toEqual([]);
    expect(await second.ctx.submissions.settlementsOwed(10)).toEqual([]);
    // A loaded machine may time out a first attempt and retry it after its backoff: the deliveries are what count here.
    // Delivery is at least once (§6.6): the delivery the first process sent may come again, under its event id, when
    // that process closed before its answer was recorded. So the events are counted, not the requests.
    const events = () => new Map(receiver.bodies().map((body) => [body.id, body.event]));
    await until(() => events().size === 2, 30_000);
    expect([...events().values()].sort()).toEqual(["submission.failed", "submission.forwarded"]);
    await second.close();
    closers.pop();

    // Idempotent: a third start finds nothing left, and the dedupe keys would have refused a second delivery anyway.
    const third = await open();
    closers.push(() => third.close());
    expect(await deliveriesOf(third, subscription.id)).toHaveLength(2);
    expect(await rowCount(third, "webhook_deliveries")).toBe(2);
  });
});
