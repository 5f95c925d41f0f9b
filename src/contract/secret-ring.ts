/**
 * §6.3.3 / §6.5: webhook secrets held by version, with the two-phase rotation. The same ring serves the sender
 * (`rotate` → `activate`, signs with the current version) and the receiver (`withSecret` loads the pending one,
 * `activate` starts the overlap of the previous one, `prune` drops it).
 */
export interface SecretEntry {
  readonly version: number;
  readonly secret: string;
  /** Unix seconds after which this version no longer verifies (§6.5.3: the end of the overlap). */
  readonly notAfter?: number | undefined;
}

/** What a verifier needs: the secret of a version, if it still verifies at `nowSeconds`. */
export interface SecretLookup {
  secretFor(version: number, nowSeconds: number): string | undefined;
}

/** The storable form (it holds secrets: encrypt at rest, never log it). */
export interface SecretRingState {
  readonly current?: number | undefined;
  readonly entries: readonly SecretEntry[];
}

/**
 * §6.5.3 leaves the overlap "short". A delivery signed with the previous version is accepted for at most the 300 s
 * tolerance after signing (§8), so anything above that covers in-flight retries; an hour leaves room for queues and
 * clock skew without keeping a retired secret alive for long.
 */
export const DEFAULT_OVERLAP_SECONDS = 3600;

export class SecretRing implements SecretLookup {
  readonly #current: number | undefined;
  readonly #entries: ReadonlyMap<number, SecretEntry>;

  private constructor(entries: ReadonlyMap<number, SecretEntry>, current: number | undefined) {
    this.#entries = entries;
    this.#current = current;
  }

  /** Validates versions (positive integers, unique, non-empty secrets) and that `current` is one of them. */
  static of(entries: readonly SecretEntry[], current?: number): SecretRing {
    const map = new Map<number, SecretEntry>();
    for (const entry of entries) {
      if (!Number.isSafeInteger(entry.version) || entry.version < 1) {
        throw new RangeError(`secret version ${entry.version} is not a positive integer`);
      }
      if (typeof entry.secret !== "string" || entry.secret.length === 0) {
        throw new RangeError(`secret version ${entry.version} is missing or empty`);
      }
      if (map.has(entry.version)) throw new RangeError(`secret version ${entry.version} appears twice`);
      map.set(entry.version, { ...entry });
    }
    if (current !== undefined && !map.has(current)) throw new RangeError(`current version ${current} is not held`);
    return new SecretRing(map, current);
  }

  /** A new subscription: version 1, current. */
  static first(secret: string): SecretRing {
    return SecretRing.of([{ version: 1, secret }], 1);
  }

  static fromState(state: SecretRingState): SecretRing {
    return SecretRing.of(state.entries, state.current);
  }

  /** The version new deliveries are signed with; undefined on a receiver that only verifies. */
  get currentVersion(): number | undefined {
    return this.#current;
  }

  /** §6.5.1: a created, not yet activated version (above the current one). */
  get pendingVersion(): number | undefined {
    if (this.#current === undefined) return undefined;
    const above = [...this.#entries.keys()].filter((v) => v > (this.#current ?? 0));
    return above.length > 0 ? Math.max(...above) : undefined;
  }

  get versions(): number[] {
    return [...this.#entries.keys()].sort((a, b) => a - b);
  }

  /** §6.5.1/§6.5.3: deliveries are signed with the current version until the pending one is activated. */
  signingSecret(): { version: number; secret: string } {
    const entry = this.#current === undefined ? undefined : this.#entries.get(this.#current);
    if (!entry) throw new Error("the ring has no current secret to sign with");
    return { version: entry.version, secret: entry.secret };
  }

  /** §6.3.3: unknown versions, and versions past their overlap, do not verify. */
  secretFor(version: number, nowSeconds: number): string | undefined {
    const entry = this.#entries.get(version);
    if (!entry) return undefined;
    if (entry.notAfter !== undefined && nowSeconds > entry.notAfter) return undefined;
    return entry.secret;
  }

  /** §6.5.2: the receiver loads a (pending) secret keyed by its version. Replaces a version already held. */
  withSecret(entry: SecretEntry): SecretRing {
    const others = [...this.#entries.values()].filter((e) => e.version !== entry.version);
    return SecretRing.of([...others, entry], this.#current);
  }

  /**
   * §6.5.1: a pending secret with the next version number; signing stays on the current version. A pending version
   * that was never activated is discarded, and its number is not reused (a secret shown once is never re-meant).
   */
  rotate(secret: string): SecretRing {
    const pending = this.pendingVersion;
    const next = Math.max(0, ...this.#entries.keys()) + 1;
    const kept = [...this.#entries.values()].filter((e) => e.version !== pending);
    return SecretRing.of([...kept, { version: next, secret }], this.#current);
  }

  /**
   * §6.5.3: `version` becomes current; every older version keeps verifying until `nowSeconds + overlapSeconds`
   * (an earlier end already set is kept), then `prune` drops it.
   */
  activate(version: number, nowSeconds: number, overlapSeconds: number = DEFAULT_OVERLAP_SECONDS): SecretRing {
    if (!this.#entries.has(version)) throw new RangeError(`version ${version} is not held`);
    if (this.#current !== undefined && version <= this.#current) {
      throw new RangeError(`version ${version} is not above the current version ${this.#current}`);
    }
    const end = nowSeconds + overlapSeconds;
    const entries = [...this.#entries.values()].map((e) =>
      e.version < version ? { ...e, notAfter: Math.min(e.notAfter ?? end, end) } : e,
    );
    return SecretRing.of(entries, version);
  }

  /** §6.5.3 "then drops it": removes versions whose overlap has ended. The current version is never dropped. */
  prune(nowSeconds: number): SecretRing {
    const entries = [...this.#entries.values()].filter(
      (e) => e.version === this.#current || e.notAfter === undefined || nowSeconds <= e.notAfter,
    );
    return SecretRing.of(entries, this.#current);
  }

  toState(): SecretRingState {
    return { current: this.#current, entries: [...this.#entries.values()].map((e) => ({ ...e })) };
  }

  /** Logging a ring shows versions only, never a secret. */
  toJSON(): { current: number | undefined; versions: number[] } {
    return { current: this.#current, versions: this.versions };
  }
}
