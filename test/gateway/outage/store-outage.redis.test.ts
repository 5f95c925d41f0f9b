import { Queue } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { redisConnection } from "../../../src/gateway/coordination/index.js";
import { isStoreOutage, OutageRetry, outageCause } from "../../../src/gateway/outage/index.js";
import { createLogger } from "../../../src/log.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { captureLog } from "../../helpers/log-capture.js";
import {
  dropPrefix,
  redisForTests,
  redisServerForTests,
  SHARED_REDIS_URL,
  startRedisServer,
  uniquePrefix,
} from "../../helpers/redis.js";

const shared = await redisForTests();
const ownServer = shared && (await redisServerForTests());

/** The rejection of `work`, which must fail: a test that expects an error never passes on a success. */
async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected the command to fail");
}

describe.skipIf(!shared)("isStoreOutage: ioredis's and BullMQ's errors, produced against the real Redis", () => {
  const prefix = uniquePrefix("outage");
  let proxy: FaultProxy;
  const clients: Redis[] = [];

  beforeAll(async () => {
    const { hostname, port } = new URL(SHARED_REDIS_URL);
    proxy = await startFaultProxy({ target: { host: hostname, port: Number(port) } });
  });
  afterEach(async () => {
    await proxy.restore();
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await proxy?.close();
    await dropPrefix(SHARED_REDIS_URL, prefix);
  });

  const through = async (options: RedisOptions) => {
    const client = new Redis(proxy.url(SHARED_REDIS_URL), { lazyConnect: true, ...options });
    client.on("error", () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  };

  describe("outages: Redis cannot be reached or cannot write", () => {
    it("a command on a connection without an offline queue while Redis is away (the gateway's producers)", async () => {
      const client = await through({ enableOfflineQueue: false, retryStrategy: () => 1_000 });
      await proxy.cut();
      await expect.poll(() => client.status).not.toBe("ready");
      const error = await failureOf(() => client.set(`${prefix}:a`, "1"));
      expect((error as Error).message).toBe("Stream isn't writeable and enableOfflineQueue options is false");
      expect(outageCause(error)?.reason).toBe("unreachable");
    });

    it("MaxRetriesPerRequestError: a command queued offline, given up after its retries", async () => {
      const client = await through({ maxRetriesPerRequest: 1, retryStrategy: () => 20 });
      await proxy.cut();
      const error = await failureOf(() => client.set(`${prefix}:b`, "1"));
      expect((error as Error).name).toBe("MaxRetriesPerRequestError");
      expect(isStoreOutage(error)).toBe(true);
    });

    it("'Connection is closed.': a command in flight when the connection goes, not resent", async () => {
      const client = await through({ retryStrategy: () => null, autoResendUnfulfilledCommands: false });
      const blocked = failureOf(() => client.blpop(`${prefix}:never`, 5));
      await expect.poll(() => proxy.connections()).toBe(1);
      await proxy.cut();
      const error = await blocked;
      expect((error as Error).message).toBe("Connection is closed.");
      expect(outageCause(error)?.reason).toBe("connection_lost");
    });

    it("a connection refused: ECONNREFUSED on the connection's error event, 'Connection is closed.' on connect", async () => {
      await proxy.cut();
      const client = new Redis(proxy.url(SHARED_REDIS_URL), { lazyConnect: true, retryStrategy: () => null });
      clients.push(client);
      const emitted = new Promise<unknown>((resolve) => client.once("error", resolve));
      const error = await failureOf(() => client.connect());
      expect(outageCause(await emitted)).toMatchObject({ reason: "unreachable", code: "ECONNREFUSED" });
      expect(outageCause(error)?.reason).toBe("connection_lost");
    });

    it("'Command timed out': no answer from a partitioned Redis", async () => {
      const client = await through({ commandTimeout: 100 });
      proxy.stall();
      const error = await failureOf(() => client.get(`${prefix}:c`));
      expect((error as Error).message).toBe("Command timed out");
      expect(isStoreOutage(error)).toBe(true);
    });

    it("BullMQ: adding a job on the gateway's producer connection while Redis is away", async () => {
      const connection = redisConnection(proxy.url(SHARED_REDIS_URL), "producer", createLogger({ level: "silent" }));
      const queue = new Queue(`${prefix}-send`, { connection, prefix });
      queue.on("error", () => undefined);
      try {
        await queue.waitUntilReady();
        await queue.add("send", { submissionId: "sub_before" });
        await proxy.cut();
        const error = await failureOf(() => queue.add("send", { submissionId: "sub_during" }));
        expect(outageCause(error)?.reason).toMatch(/unreachable|connection_lost/);
      } finally {
        await queue.close().catch(() => undefined);
        connection.disconnect();
      }
    });
  });

  it("OutageRetry through a real outage: every job added once Redis is back, the outage logged once", async () => {
    const { log, lines } = captureLog();
    const connection = redisConnection(proxy.url(SHARED_REDIS_URL), "producer", createLogger({ level: "silent" }));
    const queue = new Queue(`${prefix}-retry`, { connection, prefix });
    queue.on("error", () => undefined);
    try {
      await queue.waitUntilReady();
      const retry = new OutageRetry({ name: "send queue", log });
      const restored = proxy.cutFor(500);
      const adds = Array.from({ length: 10 }, (_, i) =>
        retry.run(() => queue.add("send", { submissionId: `sub_${i}` }, { jobId: `job-${i}` })),
      );
      await restored;
      expect((await Promise.all(adds)).map((job) => job.id)).toEqual(Array.from({ length: 10 }, (_, i) => `job-${i}`));
      expect(await queue.getJobCountByTypes("wait")).toBe(10);
      expect(lines.filter((line) => line.loop === "send queue").map((line) => line.msg)).toEqual([
        "send queue: store unavailable, retrying until it is back",
        "send queue: store available again",
      ]);
    } finally {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close().catch(() => undefined);
      connection.disconnect();
    }
  });

  describe("not outages: Redis answered, the command is wrong", () => {
    it("WRONGTYPE, an unknown command, NOSCRIPT", async () => {
      const client = await through({});
      await client.set(`${prefix}:string`, "x");
      const errors = await Promise.all([
        failureOf(() => client.lpush(`${prefix}:string`, "y")),
        failureOf(() => client.call("NO-SUCH-COMMAND")),
        failureOf(() => client.evalsha("0".repeat(40), 0)),
      ]);
      expect(errors.map((error) => (error as Error).message.split(" ")[0])).toEqual(["WRONGTYPE", "ERR", "NOSCRIPT"]);
      for (const error of errors) expect(isStoreOutage(error)).toBe(false);
    });
  });
});

describe.skipIf(!ownServer)("isStoreOutage: Redis refusing writes (a redis-server of the test's own)", () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let client: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url);
    client.on("error", () => undefined);
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it("OOM: maxmemory reached under noeviction (as BullMQ asks)", async () => {
    await client.config("SET", "maxmemory-policy", "noeviction");
    await client.config("SET", "maxmemory", "1");
    try {
      const error = await failureOf(() => client.set("k", "v"));
      expect(outageCause(error)).toMatchObject({ reason: "full", code: "OOM" });
    } finally {
      await client.config("SET", "maxmemory", "0");
    }
    // The positive control: the same write passes once there is room.
    expect(await client.set("k", "v")).toBe("OK");
  });

  it("READONLY: a write to a replica (a failover left the gateway on the old primary)", async () => {
    // A replica of a primary that does not exist: it refuses writes at once, as any replica does.
    await client.call("REPLICAOF", "127.0.0.1", "1");
    try {
      const error = await failureOf(() => client.set("k", "v"));
      expect(outageCause(error)).toMatchObject({ reason: "read_only", code: "READONLY" });
    } finally {
      await client.call("REPLICAOF", "NO", "ONE");
    }
    expect(await client.set("k", "v")).toBe("OK");
  });
});
