import { afterEach, describe, expect, it } from "vitest";
import type { Drill } from "../helpers/outage-drill.js";
import { outageLasting, waitFor } from "../helpers/outage-drill.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";
import { redisForTests } from "../helpers/redis.js";
import { finish, startDrill } from "./points.js";

/**
 * Outages only some processes see, and Redis's (D-335, D-337), on the BullMQ driver with two API processes and two
 * workers: the leaders' loops move to a process that reaches the database; a 30 s outage of Redis keeps intake
 * accepting (the database is the outbox) and loses nothing.
 */

const pgUp = await postgresAvailable();
const redisUp = await redisForTests();
const CUT_MS = 30_000;

let drill: Drill | undefined;
afterEach(async () => {
  await drill?.close();
  drill = undefined;
});

describe.skipIf(!pgUp || !redisUp)("the leaders cut off from PostgreSQL, alone, for 30 s", () => {
  const database = usePostgresDatabase();
  it("their loops move to processes that reach it: forwarding and webhooks go on during the cut", async () => {
    const current = await startDrill({ databaseUrl: database.url, driver: "bullmq", apis: 2, workers: 2 });
    drill = current;
    const acme = await current.addCompany("Partition Co");
    await Promise.all(Array.from({ length: 6 }, (_, i) => current.postLead(acme, `before${i}`)));
    // Quiet first: no webhook answered and uncommitted in the leader (a partition of one process is the one case
    // where a delivery may go twice, §6.6; docs/operations.md).
    await current.drained(30_000);
    await waitFor(() => current.processes.some((p) => p.gateway?.webhooks.dispatcher), 15_000, "a webhook leader");
    const forwardingLeader = current.processes.find((p) => p.worker?.driver.leading);
    const webhookLeader = current.processes.find((p) => p.gateway?.webhooks.dispatcher);
    if (!forwardingLeader || !webhookLeader) throw new Error("both leaders are elected");
    const cut = [forwardingLeader.name, webhookLeader.name];
    await Promise.all(current.pgProxies(cut).map((p) => p.cut()));
    const cutAt = Date.now();

    const during = Promise.all([
      ...Array.from({ length: 8 }, (_, i) => current.postLead(acme, `during${i}`)),
      current.postBooking(acme, "during-booking"),
    ]);
    await during;
    // While they are still cut off: another worker dispatches, another API process sends the webhooks.
    await current.drained(CUT_MS - 5_000);
    expect(Date.now() - cutAt).toBeLessThan(CUT_MS);
    expect(forwardingLeader.worker?.driver.leading).toBe(false);
    expect(webhookLeader.gateway?.webhooks.dispatcher).toBeUndefined();
    await outageLasting(CUT_MS - (Date.now() - cutAt));
    await current.restoreDatabase(cut);
    await finish(current, "bullmq, the two leaders cut off alone for 30 s", 60_000);
  });
});

describe.skipIf(!pgUp || !redisUp)("a 30 s outage of Redis during a drain", () => {
  const database = usePostgresDatabase();
  it("intake keeps accepting, nothing is lost or sent twice, and forwarding catches up after", async () => {
    const current = await startDrill({ databaseUrl: database.url, driver: "bullmq", apis: 2, workers: 2 });
    drill = current;
    const acme = await current.addCompany("Redis Co");
    await Promise.all(Array.from({ length: 6 }, (_, i) => current.postLead(acme, `before${i}`)));
    await current.redisProxy?.cut();
    const cutAt = Date.now();
    // The database is the outbox: intake commits and answers 202 without Redis.
    await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => current.postLead(acme, `during${i}`)),
      current.postBooking(acme, "during-booking"),
    ]);
    expect(current.refusals).toEqual([]);
    await outageLasting(CUT_MS - (Date.now() - cutAt));
    await current.redisProxy?.restore();
    await current.recovered();
    await finish(current, "bullmq, 30 s Redis outage", 90_000);
  });
});
