import type { Clock } from "../clock.js";
import { AdmissionLog } from "./admission-log.js";
import type { Level, LimitsConfig } from "./config.js";

export interface Subject {
  level: Level;
  /** The key id, owner id or IP address. */
  id: string;
}

export interface LevelState {
  level: Level;
  limit: number;
  windowMs: number;
  /** Admissions left after this request. */
  remaining: number;
  resetMs: number;
}

export interface Decision {
  admitted: boolean;
  /** The levels that refused, empty when admitted. */
  refusedBy: Level[];
  /** Milliseconds until every refusing level would admit (0 when admitted). */
  retryAfterMs: number;
  levels: LevelState[];
}

/**
 * Hierarchical limiter (§8): a request is admitted only if every level that applies admits it, and only then is it
 * counted at every level. A refused request counts nowhere, so a client that backs off is not punished for the
 * attempts it was refused (decision recorded in docs/decisions.md).
 */
export class RateLimiter {
  private logs: Record<Level, AdmissionLog>;

  constructor(
    private config: LimitsConfig,
    private readonly clock: Clock,
  ) {
    this.logs = RateLimiter.build(config);
  }

  get limits(): LimitsConfig {
    return this.config;
  }

  /** New limits start from empty windows. */
  reconfigure(config: LimitsConfig): void {
    this.config = config;
    this.logs = RateLimiter.build(config);
  }

  admit(subjects: Subject[]): Decision {
    const now = this.clock.now();
    const states = subjects.map((subject) => ({ subject, state: this.logs[subject.level].peek(subject.id, now) }));
    const refused = states.filter(({ state }) => state.available <= 0);
    const admitted = refused.length === 0;
    if (admitted) for (const { subject } of states) this.logs[subject.level].record(subject.id, now);
    return {
      admitted,
      refusedBy: refused.map(({ subject }) => subject.level),
      retryAfterMs: Math.max(0, ...refused.map(({ state }) => state.retryAfterMs)),
      levels: states.map(({ subject, state }) => {
        const { limit, windowMs } = this.config[subject.level];
        // The request just recorded is in the window now; the oldest admission sets the reset of a non-empty window.
        const resetMs = admitted && state.resetMs === 0 ? windowMs : state.resetMs;
        return {
          level: subject.level,
          limit,
          windowMs,
          remaining: admitted ? state.available - 1 : state.available,
          resetMs,
        };
      }),
    };
  }

  private static build(config: LimitsConfig): Record<Level, AdmissionLog> {
    return {
      key: new AdmissionLog(config.key.limit, config.key.windowMs),
      owner: new AdmissionLog(config.owner.limit, config.owner.windowMs),
      ip: new AdmissionLog(config.ip.limit, config.ip.windowMs),
      health: new AdmissionLog(config.health.limit, config.health.windowMs),
    };
  }
}
