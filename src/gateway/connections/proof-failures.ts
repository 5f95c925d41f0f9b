import type { GatewayContext } from "../context.js";

/** How often refused proofs are written to their connections' counters. */
const FLUSH_EVERY_MS = 1_000;

/**
 * Refused proofs counted per connection for the owner (docs/connections.md): kept in memory and written once a second,
 * so a burst of forged requests costs the database one update per connection and second, never one per request (and
 * the connections' cache, which a write empties, stays warm for the genuine ones).
 */
export class ProofFailures {
  readonly #pending = new Map<string, { count: number; lastAt: string; lastReason: string }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: GatewayContext) {}

  add(connectionId: string, reason: string): void {
    const at = this.ctx.now().toISOString();
    const entry = this.#pending.get(connectionId);
    if (entry) {
      entry.count++;
      entry.lastAt = at;
      entry.lastReason = reason;
    } else this.#pending.set(connectionId, { count: 1, lastAt: at, lastReason: reason });
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS).unref();
  }

  /** Writes what was counted (also at close); a failed write keeps the counts for the next flush. */
  async flush(): Promise<void> {
    this.#timer = undefined;
    for (const [id, entry] of [...this.#pending]) {
      this.#pending.delete(id);
      try {
        await this.ctx.connections.addProofFailures(id, entry.count, entry.lastAt, entry.lastReason);
      } catch (error) {
        const again = this.#pending.get(id);
        this.#pending.set(id, again ? { ...again, count: again.count + entry.count } : entry);
        this.ctx.log.warn(
          { err: error, connectionId: id },
          "refused proofs not counted yet: retried at the next flush",
        );
        this.#timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS).unref();
      }
    }
  }

  close(): Promise<void> {
    clearTimeout(this.#timer);
    return this.flush();
  }
}
