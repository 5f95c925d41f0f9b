import { Deque } from "./deque.js";
import type { LimiterHierarchy, Route } from "./hierarchy.js";

export interface Ready extends Route {
  submissionId: string;
}

interface CompanyState {
  lastServed: number;
  credentials: Map<string, { lastServed: number; queue: Deque<Ready> }>;
}

/** `answered` closes the send's limiter slots: call it when the upstream's answer (or the failure) arrives. */
export type Take = { ready: Ready; answered: (at: number) => void } | { wakeAt: number } | { empty: true };

/**
 * Chooses what to send next so that the upstream's limits are kept and capacity is shared fairly (issue #4):
 * among the companies with something the limiter allows now, the one served least recently goes first (max-min
 * fair: a company held back by its own limits leaves its share to the others, and a company that was idle is served
 * at the next egress slot); within a company, its credentials take turns the same way.
 */
export class FairScheduler {
  readonly #companies = new Map<string, CompanyState>();
  #size = 0;

  constructor(private readonly limiter: LimiterHierarchy) {}

  get size(): number {
    return this.#size;
  }

  enqueue(item: Ready, options: { front?: boolean } = {}): void {
    let company = this.#companies.get(item.companyId);
    if (!company) {
      company = { lastServed: Number.NEGATIVE_INFINITY, credentials: new Map() };
      this.#companies.set(item.companyId, company);
    }
    let credential = company.credentials.get(item.credentialId);
    if (!credential) {
      credential = { lastServed: Number.NEGATIVE_INFINITY, queue: new Deque() };
      company.credentials.set(item.credentialId, credential);
    }
    if (options.front) credential.queue.unshift(item);
    else credential.queue.push(item);
    this.#size++;
  }

  /** Takes the next submission allowed at `now`, or says when to look again. Records the send in the limiter. */
  take(now: number): Take {
    if (this.#size === 0) return { empty: true };
    const egressAt = this.limiter.egress.nextAllowedAt();
    let wakeAt = Number.POSITIVE_INFINITY;
    let best: { company: CompanyState; credential: { lastServed: number; queue: Deque<Ready> } } | undefined;
    for (const company of this.#companies.values()) {
      let pick: { lastServed: number; queue: Deque<Ready> } | undefined;
      for (const [credentialId, credential] of company.credentials) {
        const head = credential.queue.size > 0 ? this.#peek(credential.queue) : undefined;
        if (!head) continue;
        const allowedAt = this.limiter.routeAllowedAt({ credentialId, companyId: head.companyId });
        if (allowedAt > now) {
          wakeAt = Math.min(wakeAt, allowedAt);
          continue;
        }
        if (!pick || credential.lastServed < pick.lastServed) pick = credential;
      }
      if (pick && (!best || company.lastServed < best.company.lastServed)) best = { company, credential: pick };
    }
    if (!best) return { wakeAt: Math.max(wakeAt, egressAt) };
    if (egressAt > now) return { wakeAt: egressAt };
    const ready = best.credential.queue.shift();
    if (!ready) return { empty: true };
    this.#size--;
    best.company.lastServed = now;
    best.credential.lastServed = now;
    const answered = this.limiter.record(ready, now);
    this.#prune(now);
    return { ready, answered };
  }

  /** Removes and returns a credential's queued submissions (the credential was paused). */
  drainCredential(credentialId: string): Ready[] {
    const taken: Ready[] = [];
    for (const company of this.#companies.values()) {
      const credential = company.credentials.get(credentialId);
      if (!credential) continue;
      taken.push(...credential.queue.extract(() => true));
    }
    this.#size -= taken.length;
    return taken;
  }

  #peek(queue: Deque<Ready>): Ready | undefined {
    for (const item of queue) return item;
    return undefined;
  }

  /** Empty companies and credentials are dropped, so the scan covers only backlogged ones. */
  #prune(now: number): void {
    for (const [companyId, company] of this.#companies) {
      for (const [credentialId, credential] of company.credentials) {
        if (credential.queue.size === 0 && credential.lastServed < now - 60_000) {
          company.credentials.delete(credentialId);
        }
      }
      if (company.credentials.size === 0) this.#companies.delete(companyId);
    }
  }
}
