import { companyRule, type ForwardingLimits } from "./limits.js";
import { SlidingLog } from "./sliding-log.js";

export interface Route {
  credentialId: string;
  companyId: string;
}

/** Names of the limiter nodes a route passes, credential first (how a mirror of the history keys them). */
export function nodesOf(route: Route): [string, string, string] {
  return [`credential:${route.credentialId}`, `company:${route.companyId}`, "egress"];
}

/** A send history to start from (a dispatcher taking over): answer times per node, pauses per credential. */
export interface LimiterHistory {
  logs: Map<string, number[]>;
  pausedUntil: Map<string, number>;
  at: number;
}

/**
 * The three limiter levels of §8 as one tree: a send is allowed when its credential, its company and the egress all
 * allow it, and it is then recorded at all three. A credential can also be paused (a 429's retry-after).
 */
export class LimiterHierarchy {
  readonly #credentials = new Map<string, SlidingLog>();
  readonly #companies = new Map<string, SlidingLog>();
  readonly #pausedUntil = new Map<string, number>();
  readonly egress: SlidingLog;

  constructor(
    private readonly limits: ForwardingLimits,
    private readonly companyLimits: (companyId: string) => { perCredential?: number; perCompany?: number } | null,
    private readonly history?: LimiterHistory,
  ) {
    this.egress = this.#restored(
      "egress",
      new SlidingLog(limits.egress.limit, limits.egress.windowMs, limits.marginMs),
    );
    for (const [credentialId, until] of history?.pausedUntil ?? []) this.pause(credentialId, until);
  }

  #restored(node: string, log: SlidingLog): SlidingLog {
    const times = this.history?.logs.get(node);
    if (times && this.history) log.restore(times, this.history.at);
    return log;
  }

  credential(route: Route): SlidingLog {
    let log = this.#credentials.get(route.credentialId);
    if (!log) {
      const rule = companyRule(this.limits.perCredential, this.companyLimits(route.companyId)?.perCredential);
      log = this.#restored(
        `credential:${route.credentialId}`,
        new SlidingLog(rule.limit, rule.windowMs, this.limits.marginMs),
      );
      this.#credentials.set(route.credentialId, log);
    }
    return log;
  }

  company(companyId: string): SlidingLog {
    let log = this.#companies.get(companyId);
    if (!log) {
      const rule = companyRule(this.limits.perCompany, this.companyLimits(companyId)?.perCompany);
      log = this.#restored(`company:${companyId}`, new SlidingLog(rule.limit, rule.windowMs, this.limits.marginMs));
      this.#companies.set(companyId, log);
    }
    return log;
  }

  /** When this route may send next, ignoring the egress (shared by everyone, checked once per dispatch). */
  routeAllowedAt(route: Route): number {
    return Math.max(
      this.credential(route).nextAllowedAt(),
      this.company(route.companyId).nextAllowedAt(),
      this.#pausedUntil.get(route.credentialId) ?? 0,
    );
  }

  /** The route's nodes, in the order of `nodesOf`. */
  logsOf(route: Route): [SlidingLog, SlidingLog, SlidingLog] {
    return [this.credential(route), this.company(route.companyId), this.egress];
  }

  /** Records a send at every level; call the returned function when its answer (or failure) arrives. */
  record(route: Route, at: number): (answeredAt: number) => void {
    const nodes = this.logsOf(route);
    const slots = nodes.map((node) => node.record(at));
    return (answeredAt) => {
      for (const [i, node] of nodes.entries()) node.complete(slots[i] ?? 0, answeredAt);
    };
  }

  pause(credentialId: string, until: number): void {
    this.#pausedUntil.set(credentialId, Math.max(until, this.#pausedUntil.get(credentialId) ?? 0));
  }

  /** The history so far, an in-flight send counted as answered at `inFlightBound` (the latest it can arrive). */
  snapshot(inFlightBound: number, now: number): LimiterHistory {
    const logs = new Map<string, number[]>();
    const bounded = (log: SlidingLog) => log.times().map((t) => Math.min(t, inFlightBound));
    for (const [id, log] of this.#credentials) logs.set(`credential:${id}`, bounded(log));
    for (const [id, log] of this.#companies) logs.set(`company:${id}`, bounded(log));
    logs.set("egress", bounded(this.egress));
    const pausedUntil = new Map([...this.#pausedUntil].filter(([, until]) => until > now));
    return { logs, pausedUntil, at: now };
  }

  /** Forget a company's nodes so new limits take effect (a config change). */
  resetCompany(companyId: string): void {
    this.#companies.delete(companyId);
  }
}
