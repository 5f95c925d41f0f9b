import { afterEach, describe, it } from "vitest";
import type { Drill } from "../helpers/outage-drill.js";
import { sandboxFault, waitFor } from "../helpers/outage-drill.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";
import { redisForTests } from "../helpers/redis.js";
import { finish, startDrill } from "./points.js";

/**
 * The drain, under faults (D-337): a few hundred submissions of two companies — leads, and bookings whose
 * appointments are chained on their leads, every vendor key subscribed to its webhooks — to a platform that answers
 * 503 now and then, with PostgreSQL cut twice during the drain. Everything is forwarded once and every webhook owed is
 * delivered once, without a restart.
 */

const pgUp = await postgresAvailable();
const redisUp = await redisForTests();
/** Per company: leads of its lead source, and bookings (a lead and its appointment) of its booking vendor. */
const LEADS = 60;
const BOOKINGS = 40;
const CUTS_MS = [5_000, 12_000];

let drill: Drill | undefined;
afterEach(async () => {
  await drill?.close();
  drill = undefined;
});

async function drainUnderFaults(current: Drill, name: string) {
  const companies = [await current.addCompany("Drain North"), await current.addCompany("Drain South")];
  // 503 now and then: the platform refuses a tenth of the requests before acting on them.
  current.sandbox.admin.faults.add(sandboxFault({ route: "*", errorRate: 0.1, errorStatus: 503 }));
  const tasks: (() => Promise<unknown>)[] = [];
  companies.forEach((company, c) => {
    for (let i = 0; i < LEADS; i++) tasks.push(() => current.postLead(company, `c${c}-lead${i}`));
    for (let i = 0; i < BOOKINGS; i++) tasks.push(() => current.postBooking(company, `c${c}-booking${i}`));
  });
  tasks.sort(() => Math.random() - 0.5);
  const total = companies.length * (LEADS + 2 * BOOKINGS);
  let next = 0;
  const vendors = Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let task = tasks[next++]; task; task = tasks[next++]) await task();
    }),
  );
  // Two cuts of the database, at a quarter and at two thirds of the drain.
  await waitFor(async () => (await current.count("status = 'forwarded'")) >= total / 4, 120_000, "a quarter forwarded");
  await current.cutDatabase(CUTS_MS[0] ?? 0);
  await waitFor(async () => (await current.count("status = 'forwarded'")) >= (2 * total) / 3, 120_000, "two thirds");
  await current.cutDatabase(CUTS_MS[1] ?? 0);
  await vendors;
  // The platform's 503s go on after the recovery: a submission's later retries are its own, not the outage's.
  await finish(current, name, 180_000, { recoveryBound: false });
}

describe.skipIf(!pgUp)("a drain under faults, embedded driver on PostgreSQL (the issue's set-up)", () => {
  const database = usePostgresDatabase();
  it("forwards everything once and delivers every webhook once across two cuts of the database", async () => {
    drill = await startDrill({ databaseUrl: database.url, driver: "embedded" });
    await drainUnderFaults(drill, "drain under faults, embedded");
  });
});

describe.skipIf(!pgUp || !redisUp)("a drain under faults, BullMQ driver (two API processes, two workers)", () => {
  const database = usePostgresDatabase();
  it("forwards everything once and delivers every webhook once across two cuts of the database", async () => {
    drill = await startDrill({ databaseUrl: database.url, driver: "bullmq", apis: 2, workers: 2 });
    await drainUnderFaults(drill, "drain under faults, bullmq");
  });
});
