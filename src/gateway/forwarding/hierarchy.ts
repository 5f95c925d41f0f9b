import { companyRule, type ForwardingLimits } from "./limits.js";
import { SlidingLog } from "./sliding-log.js";

export interface Route {
  credentialId: string;
  companyId: string;
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
  ) {
    this.egress = new SlidingLog(limits.egress.limit, limits.egress.windowMs, limits.marginMs);
  }

  credential(route: Route): SlidingLog {
    let log = this.#credentials.get(route.credentialId);
    if (!log) {
      const rule = companyRule(this.limits.perCredential, this.companyLimits(route.companyId)?.perCredential);
      log = new SlidingLog(rule.limit, rule.windowMs, this.limits.marginMs);
      this.#credentials.set(route.credentialId, log);
    }
    return log;
  }

  company(companyId: string): SlidingLog {
    let log = this.#companies.get(companyId);
    if (!log) {
      const rule = companyRule(this.limits.perCompany, this.companyLimits(companyId)?.perCompany);
      log = new SlidingLog(rule.limit, rule.windowMs, this.limits.marginMs);
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

  /** Records a send at every level; call the returned function when its answer (or failure) arrives. */
  record(route: Route, at: number): (answeredAt: number) => void {
    const nodes = [this.credential(route), this.company(route.companyId), this.egress];
    const slots = nodes.map((node) => node.record(at));
    return (answeredAt) => {
      for (const [i, node] of nodes.entries()) node.complete(slots[i] ?? 0, answeredAt);
    };
  }

  pause(credentialId: string, until: number): void {
    this.#pausedUntil.set(credentialId, Math.max(until, this.#pausedUntil.get(credentialId) ?? 0));
  }

  /** Forget a company's nodes so new limits take effect (a config change). */
  resetCompany(companyId: string): void {
    this.#companies.delete(companyId);
  }
}
