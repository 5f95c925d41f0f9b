import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");

/**
 * The one schema (src/db/schema/, and the PostgreSQL tables derived from it: src/db/schema-pg.ts, D-275) is what the
 * migrations of each dialect create: drizzle-kit, given the schema and a copy of the migrations, finds nothing to
 * generate. A change to the schema without its migrations fails here (positive control: a copy without the last
 * migration makes drizzle-kit generate one).
 */
async function generate(dialect: "sqlite" | "postgresql", schema: string, migrations: string, drop = false) {
  const dir = mkdtempSync(join(tmpdir(), "pgw-schema-"));
  const out = join(dir, "migrations");
  cpSync(join(ROOT, migrations), out, { recursive: true });
  if (drop) {
    const journal = join(out, "meta", "_journal.json");
    const parsed = JSON.parse(await import("node:fs/promises").then((fs) => fs.readFile(journal, "utf8")));
    const last = parsed.entries.pop();
    writeFileSync(journal, JSON.stringify(parsed));
    for (const f of readdirSync(join(out, "meta")).filter((f) => f.startsWith(String(last.idx).padStart(4, "0")))) {
      rmSync(join(out, "meta", f));
    }
  }
  const config = join(dir, "drizzle.config.ts");
  writeFileSync(
    config,
    // drizzle-kit reads `out` relative to the working directory.
    `export default { dialect: "${dialect}", schema: "${join(ROOT, schema)}", out: "./migrations" };\n`,
  );
  const { stdout } = await run(join(ROOT, "node_modules/.bin/drizzle-kit"), ["generate", "--config", config], {
    cwd: dir,
  });
  return stdout;
}

describe("the schema and the migrations agree (docs/decisions.md, D-275)", () => {
  it.each([
    ["sqlite", "src/db/schema/index.ts", "migrations/gateway"],
    ["postgresql", "src/db/schema-pg.ts", "migrations/gateway-pg"],
  ] as const)("%s: drizzle-kit finds nothing to generate", async (dialect, schema, migrations) => {
    expect(await generate(dialect, schema, migrations)).toContain("No schema changes");
  });

  it("tells a missing migration apart (positive control)", async () => {
    expect(await generate("sqlite", "src/db/schema/index.ts", "migrations/gateway", true)).toContain(
      "Your SQL migration file",
    );
  });
});
