import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { applyMigrations, migrationsFolder } from "../../src/db/migrate.js";
import { openSqlite, type SqliteDatabase } from "../../src/db/sqlite.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A gateway database migrated up to and including migration `last`, as a deployment of that time left it. */
function databaseAt(last: number): { sqlite: SqliteDatabase; db: ReturnType<typeof drizzle> } {
  const dir = mkdtempSync(join(tmpdir(), "gateway-migrations-"));
  dirs.push(dir);
  const before = join(dir, "before");
  cpSync(migrationsFolder("gateway"), before, { recursive: true });
  const journalPath = join(before, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ idx: number }> };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  writeFileSync(journalPath, JSON.stringify(journal));
  const sqlite = openSqlite(join(dir, "gateway.db"));
  const db = drizzle(sqlite);
  migrate(db, { migrationsFolder: before });
  return { sqlite, db };
}

function seedSubmissionWithAttempt(sqlite: SqliteDatabase): void {
  const at = "2026-01-01T00:00:00.000Z";
  sqlite.prepare("INSERT INTO companies (id, name, created_at) VALUES ('cmp_1', 'Acme', ?)").run(at);
  sqlite
    .prepare(
      `INSERT INTO upstream_credentials (id, company_id, name, key_prefix, sealed, created_at)
       VALUES ('crd_1', 'cmp_1', 'general', 'svc_test_abcde', 'sealed', ?)`,
    )
    .run(at);
  sqlite
    .prepare(
      `INSERT INTO vendor_keys (id, company_id, name, partner_type, scopes, credential_id, secret_digest, created_at)
       VALUES ('vk_1', 'cmp_1', 'vendor', 'lead_source', '["leads:write"]', 'crd_1', 'digest', ?)`,
    )
    .run(at);
  sqlite
    .prepare(
      `INSERT INTO submissions (id, company_id, vendor_key_id, credential_id, kind, status, payload_digest, created_at,
         updated_at) VALUES ('sub_1', 'cmp_1', 'vk_1', 'crd_1', 'lead', 'forwarded', 'abc', ?, ?)`,
    )
    .run(at, at);
  sqlite
    .prepare(
      `INSERT INTO submission_attempts (id, submission_id, attempt, counted, started_at, latency_ms)
       VALUES ('att_1', 'sub_1', 1, 1, ?, 12)`,
    )
    .run(at);
}

describe("migration 0006: a submission's payload digest may be null (a table rebuild)", () => {
  it("keeps the rows, the attempts that reference them and the indexes, and foreign keys stay enforced", () => {
    const { sqlite, db } = databaseAt(5);
    seedSubmissionWithAttempt(sqlite);

    applyMigrations(db, sqlite, "gateway");

    expect(sqlite.prepare("SELECT id, payload_digest FROM submissions").all()).toEqual([
      { id: "sub_1", payload_digest: "abc" },
    ]);
    expect(sqlite.prepare("SELECT submission_id FROM submission_attempts").all()).toEqual([{ submission_id: "sub_1" }]);
    const at = "2026-01-02T00:00:00.000Z";
    sqlite
      .prepare(
        `INSERT INTO submissions (id, company_id, vendor_key_id, credential_id, kind, status, payload_digest,
           created_at, updated_at) VALUES ('sub_2', 'cmp_1', 'vk_1', 'crd_1', 'lead', 'queued', NULL, ?, ?)`,
      )
      .run(at, at);
    const indexes = sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'submissions' AND sql IS NOT NULL ORDER BY name",
      )
      .all();
    // Rebuilt by 0006; 0007 then drops the contact and created_at indexes (erasure scans a company's rows, the
    // retention purge is a range of ids) and makes the idempotency index partial; 0008 adds the partial index of
    // settled rows whose settlement was never recorded (the start-up repair's); 0010 the live log's changes of a
    // company since a cursor (docs/decisions.md D-235); 0012 a hook connection's submissions, per company; 0013 a
    // vendor key's latest submissions (alerts: a vendor gone quiet, D-344); 0016 a company's submissions by a
    // person's normalised e-mail and phone (the log's search, D-319).
    expect(indexes.map((i) => (i as { name: string }).name)).toEqual([
      "submissions_company_connection_id_idx",
      "submissions_company_email_id_idx",
      "submissions_company_forwarded_idx",
      "submissions_company_id_idx",
      "submissions_company_phone_id_idx",
      "submissions_company_status_id_idx",
      "submissions_company_updated_idx",
      "submissions_key_idem_uq",
      "submissions_settlement_owed_idx",
      "submissions_status_next_idx",
      "submissions_vendor_key_id_idx",
    ]);
    // The idempotency index is partial (a keyless lead costs it nothing) and still serves the replay lookup.
    const plan = sqlite
      .prepare(
        "EXPLAIN QUERY PLAN SELECT id FROM submissions WHERE vendor_key_id = ? AND kind = ? AND idempotency_key = ?",
      )
      .all("vk_1", "lead", "k") as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toContain("submissions_key_idem_uq");
    // The log's search by a person (D-319): the equality implies the partial indexes' predicate.
    for (const [column, index] of [
      ["contact_email", "submissions_company_email_id_idx"],
      ["contact_phone", "submissions_company_phone_id_idx"],
    ]) {
      const search = sqlite
        .prepare(
          `EXPLAIN QUERY PLAN SELECT * FROM submissions WHERE company_id = ? AND ${column} = ? ORDER BY id DESC LIMIT 51`,
        )
        .all("cmp_1", "x") as { detail: string }[];
      expect(search.map((p) => p.detail).join(" ")).toContain(index);
    }
    // The alert evaluator's windows (D-381): what failed or was forwarded, never the range of every row the company
    // changed in the window (submissions_company_updated_idx), which intake fills.
    const planOf = (statement: string) =>
      (sqlite.prepare(`EXPLAIN QUERY PLAN ${statement}`).all("cmp_1", "2026-01-01") as { detail: string }[])
        .map((p) => p.detail)
        .join(" ");
    expect(
      planOf(
        "SELECT count(*) FROM submissions WHERE company_id = ? AND status = 'failed' AND coalesce(updated_at, '') >= ?",
      ),
    ).toContain("submissions_company_status_id_idx");
    expect(
      planOf("SELECT created_at FROM submissions WHERE company_id = ? AND forwarded_at >= ? AND status = 'forwarded'"),
    ).toContain("submissions_company_forwarded_idx");
    expect(
      planOf("SELECT connection_id FROM submissions WHERE company_id = ? AND status = 'held' AND id >= ?"),
    ).toContain("submissions_company_status_id_idx");
    expect(
      sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'submissions_key_idem_uq'").get() as { sql: string },
    ).toMatchObject({ sql: expect.stringContaining("WHERE idempotency_key IS NOT NULL") });
    expect(sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(() =>
      sqlite
        .prepare(
          `INSERT INTO submission_attempts (id, submission_id, attempt, counted, started_at, latency_ms)
           VALUES ('att_2', 'sub_missing', 1, 1, ?, 1)`,
        )
        .run(at),
    ).toThrow(/FOREIGN KEY/);
  });

  it("refuses to start on a database whose rows break a foreign key after migrating", () => {
    const { sqlite, db } = databaseAt(5);
    seedSubmissionWithAttempt(sqlite);
    sqlite.pragma("foreign_keys = OFF");
    sqlite
      .prepare(
        `INSERT INTO submission_attempts (id, submission_id, attempt, counted, started_at, latency_ms)
         VALUES ('att_9', 'sub_gone', 1, 1, '2026-01-01T00:00:00.000Z', 1)`,
      )
      .run();
    sqlite.pragma("foreign_keys = ON");

    expect(() => applyMigrations(db, sqlite, "gateway")).toThrow(/break a foreign key.*submission_attempts/);
  });
});
