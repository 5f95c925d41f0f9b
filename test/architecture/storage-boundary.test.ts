import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importedTables, ROOT, SRC, sourceFiles, sqlTables, TABLE_OF_EXPORT, type Touch } from "./table-touches.js";

/**
 * One storage module per record (docs/architecture.md, "Storage"): a record's tables — their drizzle definitions and
 * their SQL — are touched by its storage module only; every capability goes through the module's interface. A
 * second implementation (PostgreSQL) then replaces one folder, not statements spread over the capabilities.
 */

/** Record → its storage module (a folder under src/gateway/storage/) and the tables it owns. */
const RECORDS: Record<string, { module: string; tables: string[] }> = {
  submissions: {
    module: "src/gateway/storage/submissions/",
    tables: ["submissions", "submission_attempts", "mapping_failures"],
  },
  credentials: { module: "src/gateway/storage/credentials/", tables: ["upstream_credentials"] },
  connections: { module: "src/gateway/storage/connections/", tables: ["connections", "proof_failure_minutes"] },
  alerts: { module: "src/gateway/storage/alerts/", tables: ["alerts", "alert_settings", "alert_notices"] },
  captures: { module: "src/gateway/storage/captures/", tables: ["captured_payloads"] },
  vendorKeys: { module: "src/gateway/storage/vendor-keys/", tables: ["vendor_keys"] },
  tenants: { module: "src/gateway/storage/tenants/", tables: ["companies", "owners", "owner_tokens"] },
  profiles: { module: "src/gateway/storage/profiles/", tables: ["profiles", "profile_versions"] },
  webhooks: {
    module: "src/gateway/storage/webhooks/",
    tables: [
      "webhook_subscriptions",
      "webhook_events",
      "webhook_deliveries",
      "webhook_attempts",
      "platform_events",
      "platform_deliveries",
      "platform_webhook_secrets",
      "sourced_leads",
      "booked_appointments",
    ],
  },
};

/** The gateway's code: everything under src/ but the schema itself and the sandbox (a database of its own). */
const FILES = sourceFiles(SRC).filter((f) => !f.startsWith("src/db/") && !f.startsWith("src/sandbox/"));
const OWNER = new Map(Object.values(RECORDS).flatMap((r) => r.tables.map((t) => [t, r.module] as const)));

function touchesOf(file: string): Touch[] {
  const source = readFileSync(join(ROOT, file), "utf8");
  return [...importedTables(file, source), ...sqlTables(file, source, [...OWNER.keys()])];
}

describe("storage boundary: one storage module per record", () => {
  it("no module outside a record's storage module touches that record's tables", () => {
    const outside = FILES.flatMap(touchesOf).filter((t) => {
      const owner = OWNER.get(t.table);
      return owner !== undefined && !t.file.startsWith(owner);
    });
    expect(outside).toEqual([]);
  });

  it("finds the storage modules' own imports and SQL (positive control)", () => {
    const own = FILES.filter((f) => f.startsWith("src/gateway/storage/")).flatMap(touchesOf);
    for (const record of Object.values(RECORDS)) {
      for (const table of record.tables) {
        expect(own.some((t) => t.table === table && t.how === "import" && t.file.startsWith(record.module))).toBe(true);
      }
    }
    expect(own).toContainEqual({
      file: "src/gateway/storage/submissions/inserts.ts",
      table: "submissions",
      how: "sql",
    });
  });

  it("flags a capability that imports a record's table definition or names it in SQL", () => {
    const file = "src/gateway/intake/example.ts";
    const source = [
      'import { and } from "drizzle-orm";',
      'import { submissions as s, type upstreamCredentials } from "../../db/schema/index.js";',
      'const rows = sqlite.prepare("SELECT id FROM mapping_failures").all();',
      'const sends = await db.selectFrom("submissionAttempts").selectAll().execute();',
      'const key = await rowOfCompany(sql.db, "vendorKeys", id, companyId);',
    ].join("\n");
    expect(importedTables(file, source)).toEqual([
      { file, table: "submissions", how: "import" },
      { file, table: "upstream_credentials", how: "import" },
    ]);
    expect(sqlTables(file, source, ["submissions", "mapping_failures", "submission_attempts", "vendor_keys"])).toEqual([
      { file, table: "mapping_failures", how: "sql" },
      { file, table: "submission_attempts", how: "sql" },
      { file, table: "vendor_keys", how: "sql" },
    ]);
  });

  it("every gateway table belongs to one record's storage module", () => {
    const unowned = [...TABLE_OF_EXPORT.values()].filter((t) => !OWNER.has(t));
    expect(unowned).toEqual([]);
    expect(OWNER.size).toBe(TABLE_OF_EXPORT.size);
  });
});
