import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { admin, postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";
import { dropPrefix, redisForTests, SHARED_REDIS_URL, uniquePrefix } from "../../helpers/redis.js";

const postgres = await postgresAvailable();
const redis = await redisForTests();

/** What a client meets when its server is gone: a refused connect, a reset, a terminated connection. */
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|EPIPE|Connection terminated|Connection is closed|max retries/i;
const describeError = (error: unknown) =>
  error instanceof Error ? `${(error as { code?: string }).code ?? ""} ${error.name} ${error.message}` : String(error);

const targetOf = (url: string) => {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
};

describe.skipIf(!postgres)("the fault proxy in front of PostgreSQL (node-postgres)", () => {
  const database = usePostgresDatabase({ migrate: false });
  let proxy: FaultProxy;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    proxy = await startFaultProxy({ target: targetOf(database.url) });
  });
  afterEach(async () => {
    await proxy.restore();
    await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** A pool through the proxy; idle connections that break are reported, as the gateway's pool reports them. */
  const poolThrough = (options: pg.PoolConfig = {}) => {
    const pool = new pg.Pool({ connectionString: proxy.url(database.url), connectionTimeoutMillis: 2_000, ...options });
    pool.on("error", () => undefined);
    pools.push(pool);
    return pool;
  };
  const one = async (pool: pg.Pool) => (await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one;

  it("forwards a pool's queries while open", async () => {
    const pool = poolThrough();
    expect(await one(pool)).toBe(1);
    expect(proxy.connections()).toBe(1);
    expect(proxy.state).toBe("open");
  });

  it("cut: a query fails with a connection error, and works again once restored", async () => {
    const pool = poolThrough();
    expect(await one(pool)).toBe(1);
    await proxy.cut();
    expect(proxy.state).toBe("cut");
    expect(proxy.connections()).toBe(0);
    const failure = await one(pool).catch((error: unknown) => error);
    expect(describeError(failure)).toMatch(CONNECTION_ERROR);
    // While cut, a new connection is refused, as by a server that is down.
    const refused = await one(poolThrough()).catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe("ECONNREFUSED");
    await proxy.restore();
    expect(await one(pool)).toBe(1);
  });

  it("cut: a statement in flight fails at once, and the server sees its idle client go (both directions)", async () => {
    const application = `fault-proxy-${Date.now()}`;
    const pool = poolThrough({ application_name: application, max: 2 });
    const backends = (state: "idle" | "active") =>
      admin(async (client) => {
        const result = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = $2",
          [application, state],
        );
        return result.rows[0]?.n;
      });
    const idle = await pool.connect();
    // A checked-out client has no listener of the pool's: its connection's failure would be an uncaught 'error'.
    idle.on("error", () => undefined);
    const sleeping = pool.query("SELECT pg_sleep(3)").catch((error: unknown) => error);
    await expect.poll(() => backends("active")).toBe(1);
    expect(await backends("idle")).toBe(1);
    const started = Date.now();
    await proxy.cut();
    expect(describeError(await sleeping)).toMatch(CONNECTION_ERROR);
    expect(Date.now() - started).toBeLessThan(2_000);
    // The backend of the idle connection reads the reset at once; a running statement notices only when it next
    // writes to its client, as with a real network failure.
    await expect.poll(() => backends("idle"), { timeout: 10_000 }).toBe(0);
    idle.release(true);
  });

  it("cutFor: refuses for the given time, then accepts again by itself", async () => {
    const pool = poolThrough();
    expect(await one(pool)).toBe(1);
    const started = Date.now();
    const restored = proxy.cutFor(400);
    expect(proxy.state).toBe("cut");
    expect(describeError(await one(pool).catch((error: unknown) => error))).toMatch(CONNECTION_ERROR);
    await restored;
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(proxy.state).toBe("open");
    expect(await one(pool)).toBe(1);
  });

  it("stall: a statement waits silently and completes when the network comes back; a new connection times out", async () => {
    const pool = poolThrough();
    expect(await one(pool)).toBe(1);
    proxy.stall();
    let settled = false;
    const held = one(pool).finally(() => {
      settled = true;
    });
    // A new connection is accepted and never answered: only the client's own connect timeout ends it.
    const timedOut = await one(poolThrough({ connectionTimeoutMillis: 300 })).catch((error: unknown) => error);
    expect(describeError(timedOut)).toMatch(/timeout/i);
    expect(settled).toBe(false);
    await proxy.restore();
    expect(await held).toBe(1);
  });
});

describe.skipIf(!redis)("the fault proxy in front of Redis (ioredis)", () => {
  let proxy: FaultProxy;
  const prefix = uniquePrefix("fault-proxy");
  const clients: Redis[] = [];

  beforeAll(async () => {
    proxy = await startFaultProxy({ target: targetOf(SHARED_REDIS_URL) });
  });
  afterEach(async () => {
    await proxy.restore();
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await proxy?.close();
    await dropPrefix(SHARED_REDIS_URL, prefix);
  });

  const redisThrough = () => {
    // As the gateway's producer connections: one retry per command, reconnecting quickly here.
    const client = new Redis(proxy.url(SHARED_REDIS_URL), { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    client.on("error", () => undefined);
    clients.push(client);
    return client;
  };

  it("forwards commands while open", async () => {
    const client = redisThrough();
    await client.set(`${prefix}:open`, "1");
    expect(await client.get(`${prefix}:open`)).toBe("1");
    expect(proxy.connections()).toBe(1);
  });

  it("cut: a command fails; once restored, ioredis reconnects by itself and commands work again", async () => {
    const client = redisThrough();
    await client.set(`${prefix}:cut`, "before");
    const acceptedBefore = proxy.accepted();
    await proxy.cut();
    const failure = await client.get(`${prefix}:cut`).catch((error: unknown) => error);
    expect(describeError(failure)).toMatch(CONNECTION_ERROR);
    await proxy.restore();
    await expect.poll(() => client.get(`${prefix}:cut`).catch(() => "unreachable"), { timeout: 10_000 }).toBe("before");
    expect(proxy.accepted()).toBeGreaterThan(acceptedBefore);
    expect(client.status).toBe("ready");
  });

  it("cutFor: commands fail during the cut and work after it, with no sleep in the test", async () => {
    const client = redisThrough();
    await client.set(`${prefix}:cut-for`, "kept");
    const restored = proxy.cutFor(300);
    expect(describeError(await client.get(`${prefix}:cut-for`).catch((error: unknown) => error))).toMatch(
      CONNECTION_ERROR,
    );
    await restored;
    await expect
      .poll(() => client.get(`${prefix}:cut-for`).catch(() => "unreachable"), { timeout: 10_000 })
      .toBe("kept");
  });
});
