import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openGatewayDb } from "../../../src/db/client.js";
import { sqliteSql } from "../../../src/gateway/storage/sql/sqlite.js";
import { SqliteGate } from "../../../src/gateway/storage/sqlite-gate.js";
import { CompiledOnce, type On } from "../../../src/gateway/storage/webhooks/compiled.js";

// The webhooks' hot path compiles each statement once per dialect and binds each call's values into it (D-275): the
// values of one call never leak into another, and a builder that would bake a value into the SQL is refused.

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
    const named = new CompiledOnce((target, id: string, limit: number) => {
      builds++;
      return target.db
        .selectFrom("companies")
        .select(["id", "name"])
        .where("id", "=", id)
        .where("name", "!=", "none")
        .limit(limit);
    });
    expect((await named.execute(on, "co_a", 5)).rows).toEqual([{ id: "co_a", name: "A" }]);
    expect((await named.execute(on, "co_b", 5)).rows).toEqual([{ id: "co_b", name: "B" }]);
    expect((await named.execute(on, "co_b", 0)).rows).toEqual([]);
    expect(builds).toBe(1);
  });

  it("refuses a builder that inlines a value instead of binding it", async () => {
    const inlined = new CompiledOnce((target, id: string) =>
      target.db
        .selectFrom("companies")
        .select("id")
        .where(sql<boolean>`id = ${sql.lit(String(id))}`),
    );
    // Refused when it is first compiled, before anything runs.
    expect(() => inlined.execute(on, "co_a")).toThrow(/does not bind its value 0/);
    // Positive control: the same statement binding it runs.
    const bound = new CompiledOnce((target, id: string) =>
      target.db.selectFrom("companies").select("id").where("id", "=", id),
    );
    expect((await bound.execute(on, "co_a")).rows).toEqual([{ id: "co_a" }]);
  });

  it("refuses a builder given fewer placeholders than it binds values", async () => {
    const short = new CompiledOnce(
      (target, ...ids: string[]) =>
        target.db
          .selectFrom("companies")
          .select("id")
          .where("id", "in", [ids[0], ids[1]] as string[]),
      1,
    );
    expect(() => short.execute(on, "co_a", "co_b")).toThrow(/binds undefined/);
    const enough = new CompiledOnce(
      (target, ...ids: string[]) =>
        target.db
          .selectFrom("companies")
          .select("id")
          .where("id", "in", [ids[0], ids[1]] as string[]),
      2,
    );
    expect((await enough.execute(on, "co_a", "co_b")).rows).toHaveLength(2);
  });
});
