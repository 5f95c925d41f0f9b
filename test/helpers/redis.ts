import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { vi } from "vitest";
import { redisReachable } from "../../src/gateway/coordination/redis-connections.js";

/** The machine's shared Redis: tests use it only under a prefix of their own, and never flush or stop it. */
export const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Whether the Redis tests can run. Under `CI=true` an unreachable Redis is a failure, never a skip; on a machine
 * without Redis they skip, saying why.
 */
export async function redisForTests(url = SHARED_REDIS_URL): Promise<boolean> {
  if (await redisReachable(url)) return true;
  const message = `Redis is unreachable at ${url} (start redis-server, or set TEST_REDIS_URL)`;
  if (process.env.CI === "true") throw new Error(`${message}: under CI=true the Redis tests must run`);
  console.warn(`skipping the Redis tests: ${message}`);
  return false;
}

/** Whether a `redis-server` binary can be started (destructive tests run their own); same CI rule as above. */
export async function redisServerForTests(): Promise<boolean> {
  const found = await new Promise<boolean>((resolve) => {
    const child = spawn("redis-server", ["--version"], { stdio: "ignore" });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  });
  if (found) return true;
  const message = "redis-server is not installed (the flush and restart tests start their own)";
  if (process.env.CI === "true") throw new Error(`${message}: under CI=true these tests must run`);
  console.warn(`skipping: ${message}`);
  return false;
}

/** A key prefix no other test uses. */
export function uniquePrefix(name: string): string {
  return `test-${name}-${randomBytes(4).toString("hex")}`;
}

/** Deletes every key under `prefix:` — a test's own prefix, never anything else of the shared Redis. */
export async function dropPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on("error", () => undefined);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", "1000");
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  } catch {
    // Redis already stopped (a test's own server): nothing to clean.
  } finally {
    redis.disconnect();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A `redis-server` of the test's own on a free port, persisting nothing, for tests that flush or restart Redis (the
 * shared one at 6379 is never touched). `restart` stops it and starts an empty one on the same port.
 */
export async function startRedisServer() {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const up = async () => {
    child = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    try {
      await vi.waitUntil(() => redisReachable(url), { timeout: 5_000, interval: 50 });
    } catch (error) {
      throw new Error(`redis-server did not start on port ${port}`, { cause: error });
    }
  };
  const down = () =>
    new Promise<void>((resolve) => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  await up();
  return {
    url,
    port,
    /** Runs one command on a fresh connection (FLUSHALL and the like). */
    async command(...args: [string, ...(string | number)[]]): Promise<unknown> {
      const redis = new Redis(url);
      try {
        return await redis.call(...args);
      } finally {
        redis.disconnect();
      }
    },
    /** The fault: Redis away for `downMs` (what the clients see is the time without a server), then back empty. */
    async restart(downMs = 300) {
      await down();
      // The outage's length is the fault itself; there is no state to wait for.
      await new Promise((r) => setTimeout(r, downMs));
      await up();
    },
    stop: down,
  };
}
