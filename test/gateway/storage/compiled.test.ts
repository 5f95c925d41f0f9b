import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openGatewayDb } from "../../../src/db/client.js";
import { CompiledOnce, type On } from "../../../src/gateway/storage/sql/compiled.js";
import { sqliteSql } from "../../../src/gateway/storage/sql/sqlite.js";
import { SqliteGate } from "../../../src/gateway/storage/sqlite-gate.js";

// The hot paths compile each statement once per dialect and bind each call's values into it (D-275): the values of
// one call never leak into another, and a builder that would bake a value into the SQL is refused.

describe("a statement compiled once", () => {
  let dir: string;
  let database: ReturnType<typeof openGatewayDb>;
  let on: On;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pgw-compiled-"));
    database = openGatewayDb(join(dir, "gateway.db"));
    database.sqlite.exec(`INSERT INTO companies (id, name, created_at) VALUES
      ('co_a', 'A', '2026-01-01T00:00:00.000Z'), ('co_b', 'B', '2026-01-02T00:00:00.000Z')`);
    on = { db: sqliteSql(database.sqlite, new SqliteGate()).outside, dialect: "sqlite" };
  });

  afterEach(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs with each call's values, the statement's own constants kept", async () => {
    let builds = 0;
    const named = new CompiledOnce((target, args: { id: string; limit: number }) => {
      builds++;
      return target.db
        .selectFrom("companies")
        .select(["id", "name"])
        .where("id", "=", args.id)
        .where("name", "!=", "none")
        .limit(args.limit);
    });
    expect((await named.run(on, { id: "co_a", limit: 5 })).rows).toEqual([{ id: "co_a", name: "A" }]);
    expect((await named.run(on, { id: "co_b", limit: 5 })).rows).toEqual([{ id: "co_b", name: "B" }]);
    expect((await named.run(on, { id: "co_b", limit: 0 })).rows).toEqual([]);
    expect(builds).toBe(1);
  });

  it("takes an array's values by position", async () => {
    const ids = new CompiledOnce((target, values: string[]) =>
      target.db
        .selectFrom("companies")
        .select("id")
        .where("id", "in", [values[0], values[1]] as string[])
        .orderBy("id"),
    );
    expect((await ids.run(on, ["co_b", "co_a"])).rows).toEqual([{ id: "co_a" }, { id: "co_b" }]);
    expect((await ids.run(on, ["co_b", "co_none"])).rows).toEqual([{ id: "co_b" }]);
  });

  it("refuses a builder that inlines a value instead of binding it", async () => {
    const inlined = new CompiledOnce((target, args: { id: string }) =>
      target.db
        .selectFrom("companies")
        .select("id")
        .where(sql<boolean>`id = ${sql.lit(String(args.id))}`),
    );
    // Refused when it is first compiled, before anything runs.
    expect(() => inlined.run(on, { id: "co_a" })).toThrow(/does not bind its value id/);
    // Positive control: the same statement binding it runs.
    const bound = new CompiledOnce((target, args: { id: string }) =>
      target.db.selectFrom("companies").select("id").where("id", "=", args.id),
    );
    expect((await bound.run(on, { id: "co_a" })).rows).toEqual([{ id: "co_a" }]);
  });

  it("refuses a builder that hands its values over whole instead of one by one", async () => {
    const whole = new CompiledOnce((target, row: { id: string; name: string; createdAt: string }) =>
      target.db.insertInto("companies").values(row),
    );
    expect(() => whole.run(on, { id: "co_c", name: "C", createdAt: "2026-01-03T00:00:00.000Z" })).toThrow(
      /read one by one, by name/,
    );
    const named = new CompiledOnce((target, row: { id: string; name: string; createdAt: string }) =>
      target.db.insertInto("companies").values({ id: row.id, name: row.name, createdAt: row.createdAt }),
    );
    await named.run(on, { id: "co_c", name: "C", createdAt: "2026-01-03T00:00:00.000Z" });
    expect(database.sqlite.prepare("SELECT name FROM companies WHERE id = 'co_c'").get()).toEqual({ name: "C" });
  });

  it("binds a value the call leaves out as NULL", async () => {
    const named = new CompiledOnce((target, args: { id: string; name?: string }) =>
      target.db
        .selectFrom("companies")
        .select("id")
        .where("id", "=", args.id)
        .where(sql<boolean>`coalesce(${args.name}, name) = name`),
    );
    expect((await named.run(on, { id: "co_a" })).rows).toEqual([{ id: "co_a" }]);
    expect((await named.run(on, { id: "co_a", name: "B" })).rows).toEqual([]);
  });
});
