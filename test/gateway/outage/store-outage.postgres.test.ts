import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isStoreOutage, OutageRetry, outageCause } from "../../../src/gateway/outage/index.js";
import { type OpenedStorage, openStorage } from "../../../src/gateway/storage/open-storage.js";
import { createLogger } from "../../../src/log.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { captureLog } from "../../helpers/log-capture.js";
import { admin, postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";

const available = await postgresAvailable();

/** The rejection of `work`, which must fail: a test that expects an error never passes on a success. */
async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected the statement to fail");
}

describe.skipIf(!available)("isStoreOutage: node-postgres's errors, produced against the real server", () => {
  const database = usePostgresDatabase({ migrate: false });
  let proxy: FaultProxy;
  const pools: pg.Pool[] = [];
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    const target = new URL(database.url);
    proxy = await startFaultProxy({ target: { host: target.hostname, port: Number(target.port) } });
    await admin((client) => client.query(`ALTER DATABASE ${database.name} SET lock_timeout = '5s'`));
  });
  afterEach(async () => {
    await proxy.restore();
    await Promise.all(clients.splice(0).map((client) => client.end().catch(() => undefined)));
    await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const poolOf = (url: string, options: pg.PoolConfig = {}) => {
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 2_000, ...options });
    pool.on("error", () => undefined);
    pools.push(pool);
    return pool;
  };
  const through = (options: pg.PoolConfig = {}) => poolOf(proxy.url(database.url), options);
  const clientOf = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  };

  describe("outages: the server cannot be reached or cannot take the work", () => {
    it("a connection refused while the server is down (ECONNREFUSED)", async () => {
      await proxy.cut();
      const error = await failureOf(() => through().query("SELECT 1"));
      expect(outageCause(error)).toMatchObject({ reason: "unreachable", code: "ECONNREFUSED" });
    });

    it("a statement whose connection is reset under it", async () => {
      const pool = through();
      await pool.query("SELECT 1");
      const running = failureOf(() => pool.query("SELECT pg_sleep(5)"));
      await expect.poll(() => proxy.connections()).toBe(1);
      await proxy.cut();
      expect(outageCause(await running)?.reason).toBe("connection_lost");
    });

    it("a client whose connection broke while idle, used again after the server came back", async () => {
      const client = await clientOf(proxy.url(database.url));
      const noticed = new Promise((resolve) => client.once("end", resolve));
      await proxy.cut();
      await noticed;
      await proxy.restore();
      const error = await failureOf(() => client.query("SELECT 1"));
      expect((error as Error).message).toMatch(/not queryable|Connection terminated/);
      expect(outageCause(error)?.reason).toBe("connection_lost");
    });

    it("a connection that never answers: the pool's connect timeout (its error wraps the driver's)", async () => {
      proxy.stall();
      const error = await failureOf(() => through({ connectionTimeoutMillis: 200 }).query("SELECT 1"));
      expect((error as Error).message).toBe("Connection terminated due to connection timeout");
      expect(isStoreOutage(error)).toBe(true);
    });

    it("no connection of the pool free in time (its connections held by a stalled network)", async () => {
      const pool = through({ max: 1, connectionTimeoutMillis: 200 });
      const held = await pool.connect();
      held.on("error", () => undefined);
      const error = await failureOf(() => pool.query("SELECT 1"));
      expect((error as Error).message).toBe("timeout exceeded when trying to connect");
      expect(outageCause(error)?.reason).toBe("unreachable");
      held.release();
    });

    it("a pool that is ending (the process stops while a loop still runs)", async () => {
      const pool = new pg.Pool({ connectionString: database.url });
      await pool.end();
      const error = await failureOf(() => pool.query("SELECT 1"));
      expect((error as Error).message).toBe("Cannot use a pool after calling end on the pool");
      expect(isStoreOutage(error)).toBe(true);
    });

    it("57P01: the backend terminated under a statement (a fast shutdown, an administrator)", async () => {
      const application = `outage-57p01-${randomBytes(3).toString("hex")}`;
      const pool = poolOf(database.url, { application_name: application });
      const running = failureOf(() => pool.query("SELECT pg_sleep(10)"));
      await expect
        .poll(() =>
          admin(async (client) => {
            const result = await client.query(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'",
              [application],
            );
            return result.rowCount;
          }),
        )
        .toBe(1);
      const error = await running;
      expect((error as { code?: string }).code).toBe("57P01");
      expect(outageCause(error)).toMatchObject({ reason: "restarting", code: "57P01" });
    });

    it("25006: a write refused by a read-only transaction (a standby after a failover)", async () => {
      // What a standby answers every write with; a session's default does the same on the primary.
      const pool = poolOf(database.url, { options: "-c default_transaction_read_only=on" });
      const error = await failureOf(() => pool.query("CREATE TABLE refused (id int)"));
      expect(outageCause(error)).toMatchObject({ reason: "read_only", code: "25006" });
    });

    describe("53300: too many connections", () => {
      const role = `pgw_role_${randomBytes(4).toString("hex")}`;
      beforeAll(async () => {
        // Superusers are not held to a database's connection limit: a role of the test's own is.
        await admin(async (client) => {
          await client.query(`CREATE ROLE ${role} LOGIN`);
          await client.query(`ALTER DATABASE ${database.name} CONNECTION LIMIT 1`);
        });
      });
      afterAll(async () => {
        await admin(async (client) => {
          await client.query(`ALTER DATABASE ${database.name} CONNECTION LIMIT -1`);
          await client.query(`DROP ROLE IF EXISTS ${role}`);
        });
      });

      it("a connection over the database's limit is refused by the server", async () => {
        const url = new URL(database.url);
        url.username = role;
        await clientOf(url.toString());
        const error = await failureOf(() => clientOf(url.toString()));
        expect(outageCause(error)).toMatchObject({ reason: "overloaded", code: "53300" });
      });
    });

    it("drizzle's DrizzleQueryError: the driver's error is its cause, described without the query's parameters", async () => {
      const db = drizzle(through());
      await proxy.cut();
      const secret = `s3cret-${randomBytes(4).toString("hex")}`;
      const error = await failureOf(() => db.execute(sql`SELECT ${secret}::text AS value`));
      expect((error as Error).constructor.name).toBe("DrizzleQueryError");
      expect((error as Error).message).toContain(secret);
      const cause = outageCause(error);
      expect(cause).toMatchObject({ reason: "unreachable", code: "ECONNREFUSED" });
      expect(JSON.stringify(cause)).not.toContain(secret);
    });

    it("the gateway's own PostgreSQL storage, reading while the server is away", async () => {
      let storage: OpenedStorage | undefined;
      try {
        storage = await openStorage({ databaseUrl: proxy.url(database.url) }, createLogger({ level: "silent" }));
        const opened = storage;
        expect(await opened.tenants.companyIds()).toEqual([]);
        await proxy.cut();
        expect(isStoreOutage(await failureOf(() => opened.tenants.companyIds()))).toBe(true);
        await proxy.restore();
        // The positive control: the same read answers once the server is back.
        await expect.poll(() => opened.tenants.companyIds().catch(() => "down")).toEqual([]);
      } finally {
        await storage?.close();
      }
    });
  });

  it("OutageRetry through a real outage: every read waits for the server and answers, the outage logged once", async () => {
    const { log, lines } = captureLog();
    const retry = new OutageRetry({ name: "postgres reads", log });
    const pool = through({ connectionTimeoutMillis: 500 });
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    const restored = proxy.cutFor(1_000);
    const reads = Array.from({ length: 20 }, (_, i) =>
      retry.run(async () => (await pool.query<{ n: number }>("SELECT $1::int AS n", [i])).rows[0]?.n),
    );
    await restored;
    expect(await Promise.all(reads)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const logged = lines.filter((line) => line.loop === "postgres reads");
    expect(logged.map((line) => line.msg)).toEqual([
      "postgres reads: store unavailable, retrying until it is back",
      "postgres reads: store available again",
    ]);
    expect(logged[1]?.failedTries).toBeGreaterThanOrEqual(20);
  });

  describe("not outages: the server answered, the statement is wrong", () => {
    it("23505 unique violation, 42601 syntax error, 42P01 undefined table, 22P02 invalid input", async () => {
      const pool = poolOf(database.url);
      await pool.query("CREATE TABLE IF NOT EXISTS unique_rows (id int PRIMARY KEY)");
      await pool.query("INSERT INTO unique_rows VALUES (1) ON CONFLICT DO NOTHING");
      const errors = await Promise.all([
        failureOf(() => pool.query("INSERT INTO unique_rows VALUES (1)")),
        failureOf(() => pool.query("SELEC 1")),
        failureOf(() => pool.query("SELECT * FROM no_such_table")),
        failureOf(() => pool.query("SELECT 'x'::int")),
      ]);
      expect(errors.map((error) => (error as { code?: string }).code)).toEqual(["23505", "42601", "42P01", "22P02"]);
      for (const error of errors) expect(isStoreOutage(error)).toBe(false);
    });

    it("57014: a statement cancelled by its timeout (the server works; the statement is too slow)", async () => {
      const pool = poolOf(database.url, { statement_timeout: 50 });
      const error = await failureOf(() => pool.query("SELECT pg_sleep(1)"));
      expect((error as { code?: string }).code).toBe("57014");
      expect(isStoreOutage(error)).toBe(false);
    });
  });
});
