import { companyRule, type ForwardingLimits, SHARED_LEVEL_RESERVE } from "./limits.js";
import { SendWindow } from "./send-window.js";

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
 *
 * The shared levels keep room for a newcomer (`SHARED_LEVEL_RESERVE`): a route whose backlog is new and that has
 * nothing in the level's window — at a company, a credential's first send; at the egress, another company's first.
 */
export class LimiterHierarchy {
  readonly #credentials = new Map<string, SendWindow>();
  readonly #companies = new Map<string, SendWindow>();
  readonly #pausedUntil = new Map<string, number>();
  /**
   * A credential coming out of a 429's pause sends one probe first: `due` until it goes, `in_flight` until its answer.
   * The upstream refused it last time; a burst into a refusing upstream would only be refused again.
   */
  readonly #probes = new Map<string, "due" | "in_flight">();
  readonly egress: SendWindow;

  constructor(
    private readonly limits: ForwardingLimits,
    private readonly companyLimits: (companyId: string) => { perCredential?: number; perCompany?: number } | null,
    private readonly history?: LimiterHistory,
  ) {
    this.egress = this.#restored(
      "egress",
      new SendWindow(limits.egress.limit, limits.egress.windowMs, limits.marginMs, SHARED_LEVEL_RESERVE),
    );
    for (const [credentialId, until] of history?.pausedUntil ?? []) this.pause(credentialId, until);
  }

  #restored(node: string, log: SendWindow): SendWindow {
    const times = this.history?.logs.get(node);
    if (times) log.restore(times);
    return log;
  }

  credential(route: Route): SendWindow {
    let log = this.#credentials.get(route.credentialId);
    if (!log) {
      const rule = companyRule(this.limits.perCredential, this.companyLimits(route.companyId)?.perCredential);
      log = this.#restored(
        `credential:${route.credentialId}`,
        new SendWindow(rule.limit, rule.windowMs, this.limits.marginMs),
      );
      this.#credentials.set(route.credentialId, log);
    }
    return log;
  }

  company(companyId: string): SendWindow {
    let log = this.#companies.get(companyId);
    if (!log) {
      const rule = companyRule(this.limits.perCompany, this.companyLimits(companyId)?.perCompany);
      log = this.#restored(
        `company:${companyId}`,
        new SendWindow(rule.limit, rule.windowMs, this.limits.marginMs, SHARED_LEVEL_RESERVE),
      );
      this.#companies.set(companyId, log);
    }
    return log;
  }

  /**
   * When a send on this route may go, as far as its pause, its credential and its company say (the egress is asked
   * apart, once a route may go: `egressAllowedAt`). Each level is asked only once the levels below it allow the send,
   * so a level that finds no room for it really held a send back (see `SendWindow.allowedAt`). `fresh`: the
   * credential's backlog is new (the scheduler knows), so its first send may take the company's reserve.
   */
  routeAllowedAt(route: Route, now: number, fresh = false): number {
    const pausedUntil = this.#pausedUntil.get(route.credentialId) ?? 0;
    if (pausedUntil > now) return pausedUntil;
    if (this.#probes.get(route.credentialId) === "in_flight") return Number.POSITIVE_INFINITY;
    const credential = this.credential(route);
    const credentialAt = credential.allowedAt(now);
    if (credentialAt > now) return credentialAt;
    return this.company(route.companyId).allowedAt(now, fresh && credential.idle(now));
  }

  /** When the egress takes a send of this company, whose route allows it now: at once for a fresh company's first. */
  egressAllowedAt(companyId: string, now: number, fresh = false): number {
    return this.egress.allowedAt(now, fresh && this.company(companyId).idle(now));
  }

  /** Whether the route's credential and company nodes are built: each took its company's limits when it was. */
  built(route: Route): boolean {
    return this.#credentials.has(route.credentialId) && this.#companies.has(route.companyId);
  }

  /** The route's nodes, in the order of `nodesOf`. */
  logsOf(route: Route): [SendWindow, SendWindow, SendWindow] {
    return [this.credential(route), this.company(route.companyId), this.egress];
  }

  /**
   * Records a send at every level; call the returned function when its answer (or failure) arrives. `fresh` as the
   * scheduler told `routeAllowedAt` and `egressAllowedAt`: whether the credential's and the company's backlog is new.
   */
  record(route: Route, at: number, fresh = { credential: false, company: false }): (answeredAt: number) => void {
    const nodes = this.logsOf(route);
    const [credential, company] = nodes;
    // A newcomer is decided before anything is recorded, as the levels were asked.
    const newcomer = [false, fresh.credential && credential.idle(at), fresh.company && company.idle(at)];
    const slots = nodes.map((node, i) => node.record(at, newcomer[i]));
    const probe = this.#probes.get(route.credentialId) === "due";
    if (probe) this.#probes.set(route.credentialId, "in_flight");
    return (answeredAt) => {
      for (const [i, node] of nodes.entries()) node.complete(slots[i] ?? 0, answeredAt);
      // Answered: the rest may follow, unless the answer was another 429 and `pause` made a new probe due.
      if (probe && this.#probes.get(route.credentialId) === "in_flight") this.#probes.delete(route.credentialId);
    };
  }

  /** A 429's retry-after: nothing goes on the credential until `until`, then one probe, then the rest. */
  pause(credentialId: string, until: number): void {
    this.#pausedUntil.set(credentialId, Math.max(until, this.#pausedUntil.get(credentialId) ?? 0));
    this.#probes.set(credentialId, "due");
  }

  /** The history so far, an in-flight send counted as answered at `inFlightBound` (the latest it can arrive). */
  snapshot(inFlightBound: number, now: number): LimiterHistory {
    const logs = new Map<string, number[]>();
    const bounded = (log: SendWindow) => log.times().map((t) => Math.min(t, inFlightBound));
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
