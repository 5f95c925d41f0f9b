import { afterEach, describe, it } from "vitest";
import type { Drill } from "../helpers/outage-drill.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";
import { redisForTests } from "../helpers/redis.js";
import { finish, POINTS, startDrill } from "./points.js";

/**
 * The long matrix (`npm run test:faults`, D-337): a 30 s cut of PostgreSQL at every point of a drain the issue names,
 * on the embedded driver (one process) and on the BullMQ driver (two API processes and two workers, each with
 * connections of its own): every submission forwarded once, every webhook owed delivered once, no restart, and the
 * last submission due within 10 s of the recovery plus its own retry delay (printed).
 */

const CUT_MS = 30_000;
const pgUp = await postgresAvailable();
const redisUp = await redisForTests();

let drill: Drill | undefined;
afterEach(async () => {
  await drill?.close();
  drill = undefined;
});

const drivers = [
  { driver: "embedded" as const, skip: !pgUp, label: "embedded driver, one process" },
  { driver: "bullmq" as const, skip: !pgUp || !redisUp, label: "BullMQ driver, two API processes and two workers" },
];

for (const { driver, skip, label } of drivers) {
  for (const point of POINTS) {
    describe.skipIf(skip)(`a 30 s outage of PostgreSQL ${point.name} (${label})`, () => {
      const database = usePostgresDatabase();
      it("loses nothing, sends nothing twice, delivers every webhook once, and catches up within 10 s", async () => {
        drill = await startDrill({ databaseUrl: database.url, driver, apis: 2, workers: 2, ...point.options });
        await point.run(drill, CUT_MS);
        await finish(drill, `${driver}, 30 s ${point.name}`, 90_000);
      });
    });
  }
}
