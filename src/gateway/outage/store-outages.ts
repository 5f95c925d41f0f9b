import { Counter, Gauge, type Registry } from "prom-client";
import type { Logger } from "../../log.js";
import { OutageRetry, type OutageRetryOptions } from "./outage-retry.js";
import { OutageWatch } from "./outage-watch.js";
import type { OutageReason } from "./store-outage.js";

/** Which store a loop waits for: readiness and the lease rule follow the database's outages only. */
export type OutageStore = "database" | "redis";

/** One loop's outage under way, as readiness and the operator see it. */
export interface LoopOutage {
  loop: string;
  store: OutageStore;
  since: number;
  reason: OutageReason;
}

/** While loops wait for the database, it is asked this often whether it answers, each answer given this long. */
const PROBE_EVERY_MS = 1_000;
const PROBE_TIMEOUT_MS = 1_000;

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no answer in time")), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** How long after a database outage ends its leases stay their holders' (D-334): beyond OutageRetry's longest wait. */
export const LEASE_GRACE_MS = 15_000;

/**
 * The store outages of this process as its loops see them (D-332): every loop's OutageRetry (and every OutageWatch)
 * reports here when an outage begins and ends. Readiness answers from it, /metrics counts it, a leader steps down on
 * it, the loops' sweeps wake on its recoveries, and the reconcilers keep the leases that expired during an outage for
 * their holders (leaseCutoff).
 */
export class StoreOutages {
  readonly #log: Logger;
  readonly #graceMs: number;
  readonly #current = new Map<number, LoopOutage>();
  #next = 0;
  /** The database outage seen last (or under way): when it began, and when its last loop recovered. */
  #window: { since: number; ended: number | undefined } | undefined;
  readonly #recovered = new Set<(store: OutageStore) => void>();
  /** The retries of loops waiting for the database, woken when the prober finds it answering. */
  readonly #databaseRetries = new Set<OutageRetry>();
  #probe: (() => Promise<void>) | undefined;
  #prober: NodeJS.Timeout | undefined;
  #metrics: { begun: Counter<"loop" | "store">; ongoing: Gauge<"store"> } | undefined;

  constructor(log: Logger, options: { leaseGraceMs?: number } = {}) {
    this.#log = log;
    this.#graceMs = options.leaseGraceMs ?? LEASE_GRACE_MS;
  }

  /** An OutageRetry for a loop, reporting here. `signal`: the loop's close, after which it reports nothing more. */
  retry(options: Omit<OutageRetryOptions, "log" | "onChange"> & { store?: OutageStore }): OutageRetry {
    const store = options.store ?? "database";
    const report = this.#reporter(options.name, store, options.signal);
    const retry = new OutageRetry({
      ...options,
      log: this.#log,
      onChange: (state) => report(state && { since: state.since, reason: state.reason }),
    });
    if (store === "database") {
      this.#databaseRetries.add(retry);
      options.signal?.addEventListener("abort", () => this.#databaseRetries.delete(retry), { once: true });
    }
    return retry;
  }

  /**
   * How to ask the database whether it answers (the readiness ping, bounded): while loops wait for it, it is asked once
   * a second, and as soon as it answers every waiting loop tries at once (OutageRetry.wake) — a loop's own wait may
   * have grown to 5 s, and the work is due the moment the database is back (D-330).
   */
  probeWith(probe: () => Promise<void>): void {
    this.#probe = probe;
  }

  /** Stops the prober (the process closes). */
  close(): void {
    clearInterval(this.#prober);
    this.#prober = undefined;
    this.#probe = undefined;
  }

  /** An OutageWatch for a check that does not wait (a ping), reporting here. */
  watch(options: { name: string; store?: OutageStore; signal?: AbortSignal }): OutageWatch {
    const report = this.#reporter(options.name, options.store ?? "database", options.signal);
    return new OutageWatch({
      name: options.name,
      log: this.#log,
      onChange: (state) => report(state && { since: state.since, reason: state.cause.reason }),
    });
  }

  /** The outages under way now, one per loop that waits. */
  get current(): LoopOutage[] {
    return [...this.#current.values()];
  }

  /** Whether a loop of this process waits for the database now. */
  databaseDown(): boolean {
    return this.down("database");
  }

  /** Whether a loop of this process waits for that store (either, without one) now. */
  down(store?: OutageStore): boolean {
    for (const outage of this.#current.values()) if (store === undefined || outage.store === store) return true;
    return false;
  }

  /** `listener` is told each time the last loop waiting for a store recovers: a sweep of the database is due. */
  onRecovered(listener: (store: OutageStore) => void): () => void {
    this.#recovered.add(listener);
    return () => this.#recovered.delete(listener);
  }

  /**
   * The latest lease end a reconciler may release now (D-334). A send whose outcome could not commit during a database
   * outage keeps its answer in memory and commits it once the database is back; its lease may have run out meanwhile.
   * Released at once after the recovery, its submission would be claimed and sent again before that commit lands. So
   * while a database outage lasts and for the grace after it (LEASE_GRACE_MS), only leases that had run out before it began are
   * released: a holder that is alive has committed by then.
   */
  leaseCutoff(now: number): number {
    const window = this.#window;
    if (!window) return now;
    if (window.ended === undefined || now - window.ended < this.#graceMs) return Math.min(now, window.since);
    return now;
  }

  /**
   * From when the work of another process during the last database outage is in the database (D-334): 0 when none was
   * seen, the end of the grace after it, or never (Infinity) while it lasts. A webhook dispatcher elected after an
   * outage sends from then.
   */
  settledFrom(): number {
    const window = this.#window;
    if (!window) return 0;
    return window.ended === undefined ? Number.POSITIVE_INFINITY : window.ended + this.#graceMs;
  }

  /** The figures in /metrics: outages begun per loop, and loops waiting now per store. */
  registerMetrics(registry: Registry): void {
    const begun = new Counter({
      name: "gateway_store_outages_total",
      help: "Outages of the database or Redis seen by a loop of the gateway (one per loop and outage)",
      labelNames: ["loop", "store"],
      registers: [registry],
    });
    const current = () => this.current;
    const ongoing = new Gauge({
      name: "gateway_store_outage_loops",
      help: "Loops of this process waiting for the database or Redis now (0 when both answer)",
      labelNames: ["store"],
      registers: [registry],
      collect() {
        const now = current();
        for (const store of ["database", "redis"] as const) {
          this.set({ store }, now.filter((o) => o.store === store).length);
        }
      },
    });
    this.#metrics = { begun, ongoing };
  }

  #reporter(loop: string, store: OutageStore, signal: AbortSignal | undefined) {
    const key = this.#next++;
    // A loop that closes while it waits reports nothing more: it no longer says anything about the store.
    signal?.addEventListener("abort", () => this.#current.delete(key), { once: true });
    return (state: { since: number; reason: OutageReason } | undefined) => {
      if (signal?.aborted) return;
      if (state) this.#began(key, { loop, store, ...state });
      else this.#ended(key);
    };
  }

  #began(key: number, outage: LoopOutage): void {
    this.#current.set(key, outage);
    this.#metrics?.begun.inc({ loop: outage.loop, store: outage.store });
    if (outage.store !== "database") return;
    this.#startProber();
    const window = this.#window;
    // A new outage, unless the last one's grace is still running: then it goes on from when that one began.
    if (!window || (window.ended !== undefined && outage.since - window.ended >= this.#graceMs)) {
      this.#window = { since: outage.since, ended: undefined };
    } else {
      window.ended = undefined;
      window.since = Math.min(window.since, outage.since);
    }
  }

  #startProber(): void {
    const probe = this.#probe;
    if (!probe || this.#prober) return;
    let asking = false;
    this.#prober = setInterval(() => {
      if (!this.databaseDown()) {
        clearInterval(this.#prober);
        this.#prober = undefined;
        return;
      }
      if (asking) return;
      asking = true;
      withTimeout(probe(), PROBE_TIMEOUT_MS)
        .then(
          () => {
            for (const retry of this.#databaseRetries) retry.wake();
          },
          () => undefined,
        )
        .finally(() => {
          asking = false;
        });
    }, PROBE_EVERY_MS);
    this.#prober.unref();
  }

  #ended(key: number): void {
    const outage = this.#current.get(key);
    if (!outage) return;
    this.#current.delete(key);
    if ([...this.#current.values()].some((o) => o.store === outage.store)) return;
    if (outage.store === "database" && this.#window) this.#window.ended = Date.now();
    for (const listener of this.#recovered) {
      try {
        listener(outage.store);
      } catch (error) {
        this.#log.error({ err: error }, "store recovery listener failed");
      }
    }
  }
}
