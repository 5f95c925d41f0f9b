/**
 * `npm run bench:pg-driver`: node-postgres (`pg`, a Pool) against postgres.js (`postgres`) on what the gateway's
 * PostgreSQL stores do (docs/decisions.md, D-225), each through the stores' query builder (Kysely, D-275) and raw:
 *
 * - insert: a group commit, one transaction inserting B submissions-like rows in one multi-row INSERT (B = 1, 16, 64);
 * - select: one row by primary key (raw: a prepared statement);
 * - claim: `UPDATE … WHERE id = (SELECT id … FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING …`, the dispatcher's claim;
 *
 * each under 1 and 8 concurrent callers, for BENCH_CASE_MS (default 1,000 ms) per case, on a database of its own
 * (created on PG_BENCH_URL's server, default postgres://postgres@127.0.0.1:5432/postgres, dropped at the end). Pools
 * hold 8 connections. Figures per case: operations a second and the bench process's CPU per operation (the driver's
 * cost in the gateway's process, which depends less than throughput on what else the machine runs).
 *
 * pg goes through the stores' own query builder (storage/sql/postgres.ts); postgres.js through the same builder over a
 * dialect of a few lines here (Kysely's PostgreSQL dialect on its reserved connections).
 *
 * RESULT: pick = the driver whose summed CPU per operation over the query builder's cases is lower; the ratios are
 * postgres.js over pg (above 1: postgres.js costs more / is faster).
 */
import { randomBytes } from "node:crypto";
import { type Insertable, Kysely, PostgresDialect, type PostgresPool } from "kysely";
import pg from "pg";
import postgres from "postgres";
import { migratePostgres } from "../src/db/postgres.js";
import type { Database, Sql } from "../src/gateway/storage/sql/database.js";
import { postgresSql } from "../src/gateway/storage/sql/postgres.js";
import { camelCase } from "../src/gateway/storage/sql/sqlite.js";
import { toPostgresParameter } from "../src/gateway/storage/sql/values.js";

const ADMIN_URL = process.env.PG_BENCH_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const CASE_MS = Number(process.env.BENCH_CASE_MS ?? 1_000);
const POOL = 8;
const CLAIM_ROWS = 40_000;

type Row = Insertable<Database["submissions"]>;
type Ops = {
  insert(rows: Row[]): Promise<unknown>;
  select(id: string): Promise<unknown>;
  claim(now: number): Promise<unknown>;
};
type Variant = { driver: "pg" | "postgresjs"; via: "builder" | "raw"; ops: Ops };

const payload = JSON.stringify({
  name: "Ada Lovelace",
  email: "ada@example.com",
  phone: "+15555550100",
  notes: "x".repeat(400),
});
let sequence = 0;
function row(): Row {
  const id = `sub_${Date.now().toString(36)}${(sequence++).toString(36).padStart(8, "0")}${randomBytes(4).toString("hex")}`;
  const now = new Date().toISOString();
  return {
    id,
    companyId: "co_bench",
    vendorKeyId: "vk_bench",
    credentialId: "cr_bench",
    kind: "lead",
    status: "queued",
    rawPayload: payload,
    canonicalBody: { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", address: { zip: "12345" } },
    idempotencyKey: null,
    nextAttemptAt: Date.now(),
    createdAt: now,
    updatedAt: now,
  };
}
const COLUMNS = [
  "id",
  "company_id",
  "vendor_key_id",
  "credential_id",
  "kind",
  "status",
  "raw_payload",
  "canonical_body",
  "next_attempt_at",
  "created_at",
  "updated_at",
];
const values = (r: Row) => [
  r.id,
  r.companyId,
  r.vendorKeyId,
  r.credentialId,
  r.kind,
  r.status,
  r.rawPayload,
  JSON.stringify(r.canonicalBody),
  r.nextAttemptAt,
  r.createdAt,
  r.updatedAt,
];
const CLAIM_SQL = `UPDATE submissions SET status = 'forwarding', lease_until = $1, attempts = attempts + 1
  WHERE id = (SELECT id FROM submissions WHERE status = 'queued' ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING id, vendor_key_id, canonical_body, attempts`;

/** The stores' statements on `db`: what the bench measures each driver through. */
function builderOps(db: Sql): Ops {
  return {
    insert: (rows) => db.transaction().execute((tx) => tx.insertInto("submissions").values(rows).execute()),
    select: (id) => db.selectFrom("submissions").selectAll().where("id", "=", id).execute(),
    claim: (now) => claimWithBuilder(db, now),
  };
}

function pgVariants(pool: pg.Pool): Variant[] {
  const rawOps: Ops = {
    async insert(rows) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(
          multiInsert(rows.length, (i) => `$${i + 1}`),
          rows.flatMap(values),
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
    select: (id) => pool.query({ name: "raw_by_id", text: "SELECT * FROM submissions WHERE id = $1", values: [id] }),
    claim: (now) => pool.query({ name: "raw_claim", text: CLAIM_SQL, values: [now + 30_000] }),
  };
  return [
    // Never destroyed: that would end the pool, which main() ends.
    { driver: "pg", via: "builder", ops: builderOps(postgresSql(pool)) },
    { driver: "pg", via: "raw", ops: rawOps },
  ];
}

/**
 * postgres.js as Kysely's PostgreSQL dialect takes a pool: a statement (or a transaction) on a reserved connection,
 * its parameters as the stores bind them (values.ts), its result as node-postgres shapes it.
 */
function postgresJsPool(client: postgres.Sql): PostgresPool {
  return {
    async connect() {
      const reserved = await client.reserve();
      return {
        async query(text: string, parameters: readonly unknown[]) {
          const result = await reserved.unsafe(text, parameters.map(toPostgresParameter) as never[], { prepare: true });
          return { command: result.command, rowCount: result.count, rows: [...result] };
        },
        release: () => reserved.release(),
      } as unknown as Awaited<ReturnType<PostgresPool["connect"]>>;
    },
    // The client is main()'s to end.
    end: async () => undefined,
  };
}

function postgresJsVariants(client: postgres.Sql): Variant[] {
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: postgresJsPool(client) }),
    plugins: [camelCase()],
  });
  const rawOps: Ops = {
    insert: (rows) =>
      client.begin((tx) =>
        tx.unsafe(
          multiInsert(rows.length, (i) => `$${i + 1}`),
          rows.flatMap(values) as never[],
          { prepare: true },
        ),
      ),
    select: (id) => client`SELECT * FROM submissions WHERE id = ${id}`,
    claim: (now) => client.unsafe(CLAIM_SQL, [now + 30_000], { prepare: true }),
  };
  return [
    { driver: "postgresjs", via: "builder", ops: builderOps(db) },
    { driver: "postgresjs", via: "raw", ops: rawOps },
  ];
}

/** The claim as a store writes it with the query builder: a locking subselect inside the UPDATE. */
function claimWithBuilder(db: Sql, now: number): Promise<unknown> {
  const next = db
    .selectFrom("submissions")
    .select("id")
    .where("status", "=", "queued")
    .orderBy("nextAttemptAt")
    .limit(1)
    .forUpdate()
    .skipLocked();
  return db
    .updateTable("submissions")
    .set((eb) => ({ status: "forwarding", leaseUntil: now + 30_000, attempts: eb("attempts", "+", 1) }))
    .where("id", "=", next)
    .returning(["id", "vendorKeyId", "canonicalBody", "attempts"])
    .execute();
}

function multiInsert(count: number, param: (i: number) => string): string {
  const tuples: string[] = [];
  for (let r = 0; r < count; r++) tuples.push(`(${COLUMNS.map((_, c) => param(r * COLUMNS.length + c)).join(", ")})`);
  return `INSERT INTO submissions (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`;
}

type Figures = { opsPerSec: number; cpuUsPerOp: number; p95Ms: number };

/** Runs `op` from `callers` concurrent loops for CASE_MS. */
async function measure(callers: number, op: () => Promise<unknown>): Promise<Figures> {
  for (let i = 0; i < 20; i++) await op(); // warm up: connections, prepared statements
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + CASE_MS;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await op();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    opsPerSec: (latencies.length / elapsed) * 1000,
    cpuUsPerOp: (used.user + used.system) / latencies.length,
    p95Ms: latencies[Math.floor(latencies.length * 0.95)] ?? Number.NaN,
  };
}

async function main() {
  const name = `pgw_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: POOL });
  // An idle connection ended by the DROP … WITH (FORCE) at the end reports an error on the pool.
  pool.on("error", () => undefined);
  const client = postgres(url.toString(), { max: POOL, onnotice: () => undefined });
  try {
    await migratePostgres({ lockConnection: { connectionString: url.toString() } });
    await pool.query(`INSERT INTO companies (id, name, created_at) VALUES ('co_bench', 'Bench', now()::text);
      INSERT INTO upstream_credentials (id, company_id, name, key_prefix, sealed, created_at)
        VALUES ('cr_bench', 'co_bench', 'bench', 'sk_test_bench', 'v1.x.y.z', now()::text);
      INSERT INTO vendor_keys (id, company_id, name, partner_type, scopes, credential_id, secret_digest, created_at)
        VALUES ('vk_bench', 'co_bench', 'bench', 'lead_source', '["leads:write"]', 'cr_bench', 'd', now()::text)`);
    const variants = [...pgVariants(pool), ...postgresJsVariants(client)];
    const ids: string[] = [];
    const results = new Map<string, Figures>();
    const record = (variant: Variant, kase: string, figures: Figures) => {
      results.set(`${variant.driver}/${variant.via}/${kase}`, figures);
      process.stdout.write(
        `${variant.driver.padEnd(10)} ${variant.via.padEnd(7)} ${kase.padEnd(14)} ${figures.opsPerSec.toFixed(0).padStart(7)} ops/s  ${figures.cpuUsPerOp.toFixed(0).padStart(6)} µs CPU/op  p95 ${figures.p95Ms.toFixed(2)} ms\n`,
      );
    };
    for (const callers of [1, 8]) {
      for (const batch of [1, 16, 64]) {
        for (const variant of variants) {
          const figures = await measure(callers, () => {
            const rows = Array.from({ length: batch }, row);
            if (ids.length < 5_000) ids.push(...rows.map((r) => r.id ?? ""));
            return variant.ops.insert(rows);
          });
          record(variant, `insert${batch}_c${callers}`, figures);
        }
      }
      for (const variant of variants) {
        let i = 0;
        record(
          variant,
          `select_c${callers}`,
          await measure(callers, () => variant.ops.select(ids[i++ % ids.length] ?? "")),
        );
      }
    }
    await pool.query("DELETE FROM submissions");
    for (let made = 0; made < CLAIM_ROWS; made += 1_000) {
      await variants[1]?.ops.insert(Array.from({ length: 1_000 }, row));
    }
    for (const callers of [1, 8]) {
      for (const variant of variants) {
        await pool.query("UPDATE submissions SET status = 'queued' WHERE status <> 'queued'");
        record(variant, `claim_c${callers}`, await measure(callers, () => variant.ops.claim(Date.now())));
      }
    }
    const exhausted =
      (await pool.query("SELECT count(*)::int AS n FROM submissions WHERE status = 'queued'")).rows[0].n === 0;
    if (exhausted) process.stdout.write(`warning: the claim cases used up the ${CLAIM_ROWS} queued rows\n`);

    const get = (key: string) =>
      results.get(key) ?? { opsPerSec: Number.NaN, cpuUsPerOp: Number.NaN, p95Ms: Number.NaN };
    const cases = [...new Set([...results.keys()].map((key) => key.split("/")[2] ?? ""))];
    process.stdout.write("\npostgres.js / pg        throughput  CPU/op   (builder | raw)\n");
    const ratio: Record<string, number> = {};
    let cpuPg = 0;
    let cpuJs = 0;
    for (const kase of cases) {
      const line = (["builder", "raw"] as const).map((via) => {
        const a = get(`postgresjs/${via}/${kase}`);
        const b = get(`pg/${via}/${kase}`);
        if (via === "builder") {
          cpuPg += b.cpuUsPerOp;
          cpuJs += a.cpuUsPerOp;
          ratio[`${kase}_ops`] = a.opsPerSec / b.opsPerSec;
        }
        return `${(a.opsPerSec / b.opsPerSec).toFixed(2).padStart(6)} ${(a.cpuUsPerOp / b.cpuUsPerOp).toFixed(2).padStart(6)}`;
      });
      process.stdout.write(`${kase.padEnd(22)} ${line.join("   |")}\n`);
    }
    process.stdout.write("\nbuilder / raw CPU per operation\n");
    for (const driver of ["pg", "postgresjs"]) {
      const parts = cases.map(
        (kase) =>
          `${kase}=${(get(`${driver}/builder/${kase}`).cpuUsPerOp / get(`${driver}/raw/${kase}`).cpuUsPerOp).toFixed(2)}`,
      );
      process.stdout.write(`${driver.padEnd(10)} ${parts.join(" ")}\n`);
    }
    const pick = cpuJs < cpuPg ? "postgresjs" : "pg";
    process.stdout.write(
      `RESULT pick=${pick} builder_cpu_per_op_js_vs_pg=${(cpuJs / cpuPg).toFixed(2)} insert64_c8_ops_js_vs_pg=${ratio.insert64_c8_ops?.toFixed(2)} ` +
        `insert1_c8_ops_js_vs_pg=${ratio.insert1_c8_ops?.toFixed(2)} select_c8_ops_js_vs_pg=${ratio.select_c8_ops?.toFixed(2)} ` +
        `claim_c8_ops_js_vs_pg=${ratio.claim_c8_ops?.toFixed(2)}\n`,
    );
  } finally {
    await client.end({ timeout: 5 });
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
