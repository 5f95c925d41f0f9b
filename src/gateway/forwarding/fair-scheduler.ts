import { Deque } from "./deque.js";
import type { LimiterHierarchy, Route } from "./hierarchy.js";

export interface Ready extends Route {
  submissionId: string;
}

/** A queue of the scheduler (a company's, a credential's): when it was served, and whether its backlog is new. */
interface Turn {
  lastServed: number;
  /**
   * The scheduler's count of sends at its last send (0: never served): "least recently" compares these, so sends taken
   * in the same millisecond (a burst's clump) still go round in turn instead of to whoever is first in the map.
   */
  turn: number;
  /**
   * Its queue was empty and it has not been served since: its next send is a first send, which takes the room a
   * shared level keeps for newcomers if nothing of it is in that level's window (`LimiterHierarchy`).
   */
  fresh: boolean;
}

interface CredentialState extends Turn {
  queue: Deque<Ready>;
}

interface CompanyState extends Turn {
  queued: number;
  credentials: Map<string, CredentialState>;
}

/** `answered` closes the send's limiter slots: call it when the upstream's answer (or the failure) arrives. */
export type Take = { ready: Ready; answered: (at: number) => void } | { wakeAt: number } | { empty: true };

/**
 * Chooses what to send next so that the upstream's limits are kept and capacity is shared fairly (§8): among the
 * companies with something the limiter allows now, the one served least recently goes first (max-min fair: a company
 * held back by its own limits leaves its share to the others, and a company that was idle goes at once, in the room the
 * egress keeps for a first send, or else at the next paced egress slot); within a company, its credentials take turns
 * the same way.
 */
export class FairScheduler {
  readonly #companies = new Map<string, CompanyState>();
  #size = 0;
  #turns = 0;

  constructor(private readonly limiter: LimiterHierarchy) {}

  get size(): number {
    return this.#size;
  }

  enqueue(item: Ready, options: { front?: boolean } = {}): void {
    let company = this.#companies.get(item.companyId);
    if (!company) {
      company = { lastServed: Number.NEGATIVE_INFINITY, turn: 0, fresh: true, queued: 0, credentials: new Map() };
      this.#companies.set(item.companyId, company);
    }
    let credential = company.credentials.get(item.credentialId);
    if (!credential) {
      credential = { lastServed: Number.NEGATIVE_INFINITY, turn: 0, fresh: true, queue: new Deque() };
      company.credentials.set(item.credentialId, credential);
    }
    if (company.queued === 0) company.fresh = true;
    if (credential.queue.size === 0) credential.fresh = true;
    if (options.front) credential.queue.unshift(item);
    else credential.queue.push(item);
    company.queued++;
    this.#size++;
  }

  /** Takes the next submission allowed at `now`, or says when to look again. Records the send in the limiter. */
  take(now: number): Take {
    if (this.#size === 0) return { empty: true };
    let wakeAt = Number.POSITIVE_INFINITY;
    let best: { company: CompanyState; credential: CredentialState } | undefined;
    for (const [companyId, company] of this.#companies) {
      let pick: CredentialState | undefined;
      for (const [credentialId, credential] of company.credentials) {
        if (credential.queue.size === 0) continue;
        const allowedAt = this.limiter.routeAllowedAt({ credentialId, companyId }, now, credential.fresh);
        if (allowedAt > now) {
          wakeAt = Math.min(wakeAt, allowedAt);
          continue;
        }
        if (!pick || credential.turn < pick.turn) pick = credential;
      }
      if (!pick) continue;
      // The egress is asked per company: a company's first send may take the room kept for it.
      const egressAt = this.limiter.egressAllowedAt(companyId, now, company.fresh);
      if (egressAt > now) {
        wakeAt = Math.min(wakeAt, egressAt);
        continue;
      }
      if (!best || company.turn < best.company.turn) best = { company, credential: pick };
    }
    if (!best) return { wakeAt };
    const { company, credential } = best;
    const ready = credential.queue.shift();
    if (!ready) return { empty: true };
    this.#size--;
    company.queued--;
    const answered = this.limiter.record(ready, now, { credential: credential.fresh, company: company.fresh });
    company.lastServed = now;
    credential.lastServed = now;
    company.turn = ++this.#turns;
    credential.turn = this.#turns;
    company.fresh = false;
    credential.fresh = false;
    this.#prune(now);
    return { ready, answered };
  }

  /** Removes and returns a credential's queued submissions (the credential was paused). */
  drainCredential(credentialId: string): Ready[] {
    const taken: Ready[] = [];
    for (const company of this.#companies.values()) {
      const credential = company.credentials.get(credentialId);
      if (!credential) continue;
      const drained = credential.queue.extract(() => true);
      company.queued -= drained.length;
      taken.push(...drained);
    }
    this.#size -= taken.length;
    return taken;
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
