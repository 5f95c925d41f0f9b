import { and, eq, sql } from "drizzle-orm";
import type { GatewayDb } from "../../../db/client.js";
import { profileVersions } from "../../../db/schema/index.js";
import { notFound } from "../../../http/errors.js";

/**
 * Profile versions are immutable, so intake reads each one from the database once and keeps it (bounded: the least
 * recently used falls out first).
 */
export class VersionCache {
  readonly #entries = new Map<string, { companyId: string; expression: string }>();
  readonly #select;

  constructor(
    db: GatewayDb,
    private readonly capacity = 1_000,
  ) {
    this.#select = db
      .select({ companyId: profileVersions.companyId, expression: profileVersions.expression })
      .from(profileVersions)
      .where(and(eq(profileVersions.id, sql.placeholder("id"))))
      .prepare();
  }

  get(companyId: string, versionId: string): { expression: string } {
    let entry = this.#entries.get(versionId);
    if (entry) {
      this.#entries.delete(versionId);
    } else {
      entry = this.#select.get({ id: versionId });
      if (!entry) throw notFound("profile version not found");
      if (this.#entries.size >= this.capacity) {
        const oldest = this.#entries.keys().next();
        if (!oldest.done) this.#entries.delete(oldest.value);
      }
    }
    this.#entries.set(versionId, entry);
    if (entry.companyId !== companyId) throw notFound("profile version not found");
    return entry;
  }
}
