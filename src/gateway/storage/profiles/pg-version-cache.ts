import { eq, sql } from "drizzle-orm";
import type { GatewayPgDb } from "../../../db/postgres.js";
import { profileVersions } from "../../../db/schema-pg/index.js";
import { notFound } from "../../../http/errors.js";

type Entry = { companyId: string; expression: string };

/** Intake's read of a version not yet cached: one named prepared statement. */
export function versionExpression(db: GatewayPgDb) {
  return db
    .select({ companyId: profileVersions.companyId, expression: profileVersions.expression })
    .from(profileVersions)
    .where(eq(profileVersions.id, sql.placeholder("id")))
    .prepare("profile_versions_expression");
}

/**
 * Profile versions are immutable (a version's expression and company never change; an erasure removes samples only),
 * so each process reads one from the database once and keeps it, bounded: the least recently used falls out first.
 * Nothing to invalidate, in this process or another (docs/decisions.md, D-248). The twin of version-cache.ts for
 * PostgreSQL: a hit is answered synchronously, a miss is a promise. Only committed reads are kept: a store bound to a
 * transaction reads the cache but keeps nothing it read itself (the version may roll back with the transaction).
 */
export class PgVersionCache {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly capacity = 1_000) {}

  /** The version's expression, cached or read by `load`; another company's version (or none) is a 404. */
  get(
    companyId: string,
    versionId: string,
    load: (versionId: string) => Promise<Entry | undefined>,
    keep: boolean,
  ): { expression: string } | Promise<{ expression: string }> {
    const entry = this.#entries.get(versionId);
    if (entry) {
      // Most recently used last.
      this.#entries.delete(versionId);
      this.#entries.set(versionId, entry);
      return ofCompany(entry, companyId);
    }
    return load(versionId).then((loaded) => {
      if (!loaded) throw notFound("profile version not found");
      if (keep) this.#keep(versionId, loaded);
      return ofCompany(loaded, companyId);
    });
  }

  #keep(versionId: string, entry: Entry): void {
    if (!this.#entries.has(versionId) && this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(versionId, entry);
  }
}

function ofCompany(entry: Entry, companyId: string): { expression: string } {
  if (entry.companyId !== companyId) throw notFound("profile version not found");
  return entry;
}
