/** What intake needs of a version: whose it is, and its expression. */
export interface VersionEntry {
  companyId: string;
  expression: string;
}

/**
 * The process's profile versions, kept for good (immutable: nothing to invalidate, D-248), the least recently used
 * falling out first. A hit is answered synchronously. Only committed reads are kept (`keep`): a version read inside a
 * transaction may roll back with it.
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
