import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayPostgres, openPostgres } from "../../src/db/postgres.js";
import type { Sql } from "../../src/gateway/storage/sql/database.js";
import { postgresSql } from "../../src/gateway/storage/sql/postgres.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";

const available = await postgresAvailable();

// Through the stores' query builder (D-275): what every store reads and writes with.
describe.skipIf(!available)("PostgreSQL rows read back as the SQLite schema's (docs/decisions.md, D-226)", () => {
  const database = usePostgresDatabase();
  let pg: GatewayPostgres;
  let db: Sql;
  const now = new Date().toISOString();

  beforeAll(async () => {
    pg = await openPostgres(database.url, { migrate: false, poolMax: 2 });
    // Never destroyed: that would end the pool, which pg.close() ends.
    db = postgresSql(pg.pool);
    await db
      .insertInto("companies")
      .values({ id: "co_a", name: "A", limits: { perCompany: 600 }, createdAt: now })
      .execute();
    await db
      .insertInto("upstreamCredentials")
      .values({
        id: "cr_a",
        companyId: "co_a",
        name: "main",
        keyPrefix: "sk_test_abcdef",
        sealed: "v1.a.b.c",
        createdAt: now,
      })
      .execute();
    await db
      .insertInto("vendorKeys")
      .values({
        id: "vk_a",
        companyId: "co_a",
        name: "forms",
        partnerType: "lead_source",
        scopes: ["leads:write"],
        credentialId: "cr_a",
        secretDigest: "d",
        createdAt: now,
      })
      .execute();
  });
  afterAll(async () => {
    await pg?.close();
  });

  it("json columns come back parsed, with their keys in the order written; epoch milliseconds as numbers", async () => {
    const body = { zeta: 1, alpha: { y: "2", x: [3, null] }, "": true };
    const leaseUntil = 4_102_444_800_123; // 2100-01-01, past 32 bits
    await db
      .insertInto("submissions")
      .values({
        id: "sub_1",
        companyId: "co_a",
        vendorKeyId: "vk_a",
        credentialId: "cr_a",
        kind: "lead",
        status: "queued",
        canonicalBody: body,
        leaseUntil,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    const row = await db.selectFrom("submissions").selectAll().where("id", "=", "sub_1").executeTakeFirst();
    expect(JSON.stringify(row?.canonicalBody)).toBe(JSON.stringify(body));
    expect(row?.leaseUntil).toBe(leaseUntil);
    expect(row?.result).toBeNull();
    expect(row?.attempts).toBe(0);
    const company = await db.selectFrom("companies").selectAll().executeTakeFirst();
    expect(company?.limits).toEqual({ perCompany: 600 });
    const key = await db.selectFrom("vendorKeys").selectAll().executeTakeFirst();
    expect(key?.scopes).toEqual(["leads:write"]);
    expect(key?.responseMode).toBe("async");
  });

  it("raw queries on the pool get json parsed and bigint as a string (node-postgres' defaults)", async () => {
    const { rows } = await pg.pool.query("SELECT canonical_body, lease_until FROM submissions WHERE id = 'sub_1'");
    expect(typeof rows[0]?.canonical_body).toBe("object");
    expect(rows[0]?.lease_until).toBe("4102444800123");
  });
});
