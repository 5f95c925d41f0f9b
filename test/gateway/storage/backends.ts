import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openGatewayDb } from "../../../src/db/client.js";
import { postgresStorage } from "../../../src/gateway/storage/postgres.js";
import type { CompanyRow } from "../../../src/gateway/storage/tenants/index.js";
import { type Stores, type StoreTransaction, sqliteStorage } from "../../../src/gateway/storage/transaction.js";
import type { VendorKeyRow } from "../../../src/gateway/storage/vendor-keys/index.js";
import { postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";

/** One "process" of the gateway: its stores on a connection (SQLite) or a pool (PostgreSQL) of its own. */
export type Opened = Stores & {
  transaction: StoreTransaction;
  close(): Promise<void>;
  /**
   * PostgreSQL: how many sessions on this database wait for a lock (another transaction's row lock, an advisory lock),
   * seen from the server — a test of an interleaving waits for its waiter to be there, not merely started.
   */
  lockWaits?(): Promise<number>;
};

export interface Backend {
  name: "SQLite" | "PostgreSQL";
  /** PostgreSQL unreachable on a machine without it (under CI=true `postgresAvailable` throws instead). */
  skip: boolean;
  /**
   * Registers the hooks of one database in the calling `describe` and returns how to open a process on it. Processes
   * opened by one `describe` share its database: each test makes its own rows (`id()`).
   */
  use(): () => Opened;
}

/** PostgreSQL reachable (under CI=true an unreachable one fails here instead). */
export const pgAvailable = await postgresAvailable();

export const BACKENDS: Backend[] = [
  {
    name: "SQLite",
    skip: false,
    use() {
      const path = join(mkdtempSync(join(tmpdir(), "pgw-contract-")), "gateway.db");
      return () => {
        const database = openGatewayDb(path);
        return { ...sqliteStorage(database), close: async () => database.close() };
      };
    },
  },
  {
    name: "PostgreSQL",
    skip: !pgAvailable,
    use() {
      const database = usePostgresDatabase();
      return () => {
        const pool = new pg.Pool({ connectionString: database.url, max: 4 });
        pool.on("error", () => undefined);
        const storage = postgresStorage(pool);
        return {
          ...storage,
          async lockWaits() {
            // Of this database only: other suites' sessions on the same server wait in databases of their own.
            const { rows } = await pool.query<{ waiting: number }>(
              `SELECT count(*)::int AS waiting FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            );
            return rows[0]?.waiting ?? 0;
          },
          async close() {
            await storage.close();
            await pool.end();
          },
        };
      };
    },
  },
];

/** A fresh id: every test makes its own rows in the shared database. */
export function id(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** A company of its own for one test. */
export async function newCompany(stores: Stores, change: Partial<CompanyRow> = {}): Promise<CompanyRow> {
  const row: CompanyRow = {
    id: id("co"),
    name: "Acme",
    limits: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    ...change,
  };
  await stores.tenants.insertCompany(row);
  return row;
}

/** An upstream credential of `companyId` (version 1, active). */
export async function newCredential(
  stores: Stores,
  companyId: string,
  name = "main",
  createdAt = "2026-01-01T00:00:00.000Z",
): Promise<string> {
  const credentialId = id("cred");
  await stores.credentials.insert({
    id: credentialId,
    companyId,
    name,
    keyPrefix: "pk_test_abcd",
    sealed: "v1.iv.tag.ciphertext",
    createdAt,
  });
  return credentialId;
}

/** A vendor key row of `companyId` bound to `credentialId`, not yet inserted. */
export function vendorKeyRow(
  companyId: string,
  credentialId: string,
  change: Partial<VendorKeyRow> = {},
): VendorKeyRow {
  return {
    id: id("svc_test"),
    companyId,
    name: "Marketplace",
    partnerType: "lead_source",
    scopes: ["leads:write"],
    credentialId,
    leadProfileVersionId: null,
    appointmentProfileVersionId: null,
    captureSince: null,
    responseMode: "async",
    secretDigest: "digest",
    previousSecretDigest: null,
    previousValidUntil: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    revokedAt: null,
    ...change,
  };
}
