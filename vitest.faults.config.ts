import { defineConfig } from "vitest/config";

/**
 * `npm run test:faults` (D-337): the long outage matrix — 30 s cuts of PostgreSQL and Redis at every point of a drain,
 * on both drivers and several processes, and a drain under faults — apart from `npm test`, which keeps the suite
 * short. One file at a time: each holds outages of its own for half a minute, and timing bounds are checked.
 */
export default defineConfig({
  test: {
    include: ["test/faults/**/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ["default"],
  },
});
