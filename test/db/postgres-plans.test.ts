import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";

const available = await postgresAvailable();

/**
 * The statements the SQLite plans in migrations.test.ts pin, planned by PostgreSQL over a company's table as the
 * bench leaves it (most rows forwarded, a few failed or held, every lead a person of its own, one key sending most and
 * one quiet: D-344's vendor gone quiet) and analysed: each reads the index its decision names, never the range of
 * every row the company changed (`submissions_company_updated_idx`) and never the whole table.
 */
describe.skipIf(!available)("the submissions record's indexes on PostgreSQL (D-319, D-381)", () => {
  const database = usePostgresDatabase();
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // The rows name a company and a key that the test does not make: their foreign keys are not what is planned here.
    await client.query("SET session_replication_role = replica");
    await client.query(`
      INSERT INTO submissions (id, company_id, vendor_key_id, credential_id, kind, status, created_at, updated_at,
                               forwarded_at, contact_email, contact_phone, connection_id)
      SELECT 'sub_' || lpad(i::text, 26, '0'), 'cmp_1', CASE WHEN i % 100 = 0 THEN 'vk_quiet' ELSE 'vk_busy' END,
             'cred_1', 'lead', status, at, at, CASE WHEN status = 'forwarded' THEN at END,
             md5(i::text) || '@example.com', (2000000000::bigint + i * 7919)::text,
             CASE WHEN i % 3 = 0 THEN 'con_1' END
      FROM generate_series(1, 25000) AS i,
           LATERAL (SELECT to_char(timestamp '2026-11-01' + i * interval '1 second',
                                   'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
                           CASE WHEN i % 500 = 0 THEN 'failed' WHEN i % 700 = 0 THEN 'held'
                                WHEN i > 24000 THEN 'queued' ELSE 'forwarded' END AS status) AS row`);
    await client.query("SET session_replication_role = DEFAULT");
    // Under 30,000 rows ANALYZE reads them all (300 × the default statistics target): the same estimates every run.
    await client.query("ANALYZE submissions");
  });

  afterAll(async () => {
    await client?.end();
  });

  const plan = async (statement: string) =>
    (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${statement}`)).rows.map((r) => r["QUERY PLAN"]).join("\n");

  it("finds a person by e-mail or phone on its partial index (D-319)", async () => {
    for (const [column, value, index] of [
      ["contact_email", "x@example.com", "submissions_company_email_id_idx"],
      ["contact_phone", "15125550100", "submissions_company_phone_id_idx"],
    ]) {
      expect(
        await plan(
          `SELECT * FROM submissions WHERE company_id = 'cmp_1' AND ${column} = '${value}' ORDER BY id DESC LIMIT 51`,
        ),
      ).toContain(index);
    }
  });

  it("finds a replay by its idempotency key on the partial unique index", async () => {
    expect(
      await plan(
        "SELECT id FROM submissions WHERE vendor_key_id = 'vk_busy' AND kind = 'lead' AND idempotency_key = 'k'",
      ),
    ).toContain("submissions_key_idem_uq");
  });

  it("reads the alert evaluator's windows from what failed, was held or was forwarded (D-381)", async () => {
    // Each statement, and the indexes that read only its rows (the dead letter's count may take either status index:
    // both hold the failed rows apart, and with one company the planner has no reason to prefer one).
    const statements: [string, string[]][] = [
      [
        "SELECT count(*) FROM submissions WHERE company_id = 'cmp_1' AND status = 'failed' " +
          "AND coalesce(updated_at, '') >= '2026-11-01T03:00:00.000Z'",
        ["submissions_company_status_id_idx", "submissions_status_next_idx"],
      ],
      [
        "SELECT status, created_at, forwarded_at, updated_at FROM submissions WHERE company_id = 'cmp_1' " +
          "AND forwarded_at >= '2026-11-01T06:30:00.000Z' AND status = 'forwarded'",
        ["submissions_company_forwarded_idx"],
      ],
      [
        "SELECT connection_id, count(*) FROM submissions WHERE company_id = 'cmp_1' AND status = 'held' " +
          `AND id >= 'sub_${"0".repeat(21)}23000' GROUP BY connection_id`,
        ["submissions_company_status_id_idx"],
      ],
      [
        "SELECT created_at FROM submissions WHERE vendor_key_id = 'vk_quiet' ORDER BY id DESC LIMIT 20",
        ["submissions_vendor_key_id_idx"],
      ],
    ];
    for (const [statement, indexes] of statements) {
      const planned = await plan(statement);
      expect(
        indexes.some((index) => planned.includes(index)),
        `${statement}\n${planned}`,
      ).toBe(true);
      expect(planned, statement).not.toContain("submissions_company_updated_idx");
      expect(planned, statement).not.toContain("Seq Scan");
    }
  });
});
