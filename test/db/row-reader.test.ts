import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { rowReader } from "../../src/db/row-reader.js";
import { openSqlite } from "../../src/db/sqlite.js";

const things = sqliteTable("things", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull(),
  tags: text("tags", { mode: "json" }).$type<string[]>(),
  count: integer("count").notNull(),
  ratio: real("ratio"),
  active: integer("active", { mode: "boolean" }).notNull(),
  seenAt: integer("seen_at", { mode: "timestamp_ms" }),
  kind: text("kind", { enum: ["a", "b"] }),
});

describe("rowReader", () => {
  it("reads a row exactly as drizzle's select does: JSON, booleans, timestamps, nulls and renamed columns", () => {
    const sqlite = openSqlite(":memory:");
    sqlite.exec(
      "create table things (id text primary key, display_name text not null, tags text, count integer not null, ratio real, active integer not null, seen_at integer, kind text)",
    );
    const db = drizzle(sqlite);
    db.insert(things)
      .values([
        {
          id: "t1",
          displayName: "One",
          tags: ["x", "y"],
          count: 3,
          ratio: 0.5,
          active: true,
          seenAt: new Date(1_700_000_000_000),
          kind: "a",
        },
        { id: "t2", displayName: "Two", tags: null, count: 0, ratio: null, active: false, seenAt: null, kind: null },
      ])
      .run();
    const read = rowReader(sqlite, things);
    for (const id of ["t1", "t2"]) {
      expect(read(id)).toEqual(db.select().from(things).where(eq(things.id, id)).get());
    }
    expect(read("t1")?.seenAt).toBeInstanceOf(Date);
    expect(read("missing")).toBeUndefined();
  });
});
