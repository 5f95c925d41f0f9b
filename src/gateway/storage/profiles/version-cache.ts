/** What intake needs of a version: whose it is, and its expression. */
export interface VersionEntry {
  companyId: string;
  expression: string;
}

/**
 * Profile versions are immutable (a version's expression and company never change; an erasure removes samples only),
 * so each process reads one from the database once and keeps it, bounded: the least recently used falls out first.
 * Nothing to invalidate, in this process or another (docs/decisions.md, D-248). A hit is answered synchronously, a
 * miss is a promise. Only committed reads are kept: a store bound to a transaction reads the cache but keeps nothing
 * it read itself (the version may roll back with the transaction). One per process, shared by its stores.
 */
export class VersionCache {
  readonly #entries = new Map<string, VersionEntry>();

  constructor(private readonly capacity = 1_000) {}

  /** The version's expression, cached or read by `load`; undefined for another company's version, or none. */
  get(
    companyId: string,
    versionId: string,
    load: (versionId: string) => Promise<VersionEntry | undefined>,
    keep: boolean,
  ): { expression: string } | undefined | Promise<{ expression: string } | undefined> {
    const entry = this.#entries.get(versionId);
    if (entry) {
      // Most recently used last.
      this.#entries.delete(versionId);
      this.#entries.set(versionId, entry);
      return ofCompany(entry, companyId);
    }
    return load(versionId).then((loaded) => {
      if (!loaded) return undefined;
      if (keep) this.#keep(versionId, loaded);
      return ofCompany(loaded, companyId);
    });
  }

  #keep(versionId: string, entry: VersionEntry): void {
    if (!this.#entries.has(versionId) && this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(versionId, entry);
  }
}

function ofCompany(entry: VersionEntry, companyId: string): { expression: string } | undefined {
  return entry.companyId === companyId ? entry : undefined;
}
