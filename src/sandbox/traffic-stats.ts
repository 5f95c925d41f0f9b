import type { Level } from "./limits/config.js";
import type { Subject } from "./limits/limiter.js";

export interface Tally {
  admitted: number;
  /** Requests answered 429 by the limiter (injected 429s are counted under `faults`). */
  limited: number;
}

export interface FaultTally {
  delayed: number;
  errors: number;
  resets: number;
  rateLimited: number;
}

/**
 * Referee counters (§8): how many requests each key, owner and IP had admitted or refused. A benchmark that claims
 * "zero 429" reads `limited` here rather than trusting its own client.
 */
export class TrafficStats {
  private tallies = new Map<Level, Map<string, Tally>>();
  readonly faults: FaultTally = { delayed: 0, errors: 0, resets: 0, rateLimited: 0 };

  count(subjects: Subject[], admitted: boolean): void {
    for (const { level, id } of subjects) {
      let byId = this.tallies.get(level);
      if (!byId) {
        byId = new Map();
        this.tallies.set(level, byId);
      }
      const tally = byId.get(id) ?? { admitted: 0, limited: 0 };
      if (admitted) tally.admitted += 1;
      else tally.limited += 1;
      byId.set(id, tally);
    }
  }

  byLevel(level: Level): Array<{ id: string } & Tally> {
    return [...(this.tallies.get(level) ?? new Map<string, Tally>())].map(([id, tally]) => ({ id, ...tally }));
  }

  clear(): void {
    this.tallies = new Map();
    Object.assign(this.faults, { delayed: 0, errors: 0, resets: 0, rateLimited: 0 });
  }
}
