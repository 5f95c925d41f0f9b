import type { GatewayContext } from "../context.js";
import { settledWithin } from "../coordination/settled-within.js";
import { type OutageRetry, OutageRetryClosedError } from "../outage/index.js";
import type { UpstreamCredentialStore } from "../storage/credentials/index.js";
import type { Admissible, SubmissionStore } from "../storage/submissions/index.js";
import type { CompanyRow, TenantStore } from "../storage/tenants/index.js";
import type { Verdict } from "./attempt.js";
import { FairScheduler, type Ready } from "./fair-scheduler.js";
import { LimiterHierarchy, type LimiterHistory, nodesOf } from "./hierarchy.js";
import { type ForwardingLimits, SPEC_FORWARDING_LIMITS } from "./limits.js";
import { chainedLead } from "./upstream-request.js";

/** One send the limiter allowed: its slots are held from `reservedAt` until the answer, at the latest `bound`. */
export interface ReservedSend {
  ready: Ready;
  /** Unique per send (a submission may be sent more than once). */
  sendId: string;
  reservedAt: number;
  /** The latest time this send can reach the upstream: its slots close then if no answer came. */
  bound: number;
}

/** The verdict of a send and when its answer came; no verdict when none came by the bound. */
export interface SendResult {
  verdict: Verdict | null;
  answeredAt: number;
}

/**
 * Where reserved sends go: an attempt in this process (embedded), or a job for any worker process (BullMQ).
 * `answered` may be told when the upstream's answer came before the result is in (its outcome still committing).
 */
export interface SendTransport {
  send(send: ReservedSend, answered: (at: number) => void): Promise<SendResult>;
}

/** A limiter node a send passed: its name (`nodesOf`) and rule. */
export interface LimiterNode {
  name: string;
  limit: number;
  windowMs: number;
}

/** Sees every change of the limiter's state, to mirror it (Redis) for a dispatcher that takes over. */
export interface LimiterObserver {
  reserved(nodes: LimiterNode[], send: ReservedSend): void;
  answered(nodes: LimiterNode[], send: ReservedSend, at: number): void;
  paused(credentialId: string, until: number): void;
}

export interface DispatcherOptions {
  transport: SendTransport;
  limits?: ForwardingLimits;
  /**
   * Sends at the upstream at once (reserved, their answer not in). Sends answered whose outcome is still committing
   * count apart, up to `UNSETTLED_PER_IN_FLIGHT` times as many.
   */
  maxInFlight?: number;
  /** How long after its reservation a send can still reach the upstream (pick-up + timeout). */
  sendBoundMs: number;
  /** A predecessor's history to resume from (a dispatcher taking over). */
  history?: LimiterHistory;
  observer?: LimiterObserver;
  /** Whether this dispatcher may reserve sends now (the BullMQ driver's fence: its lock was renewed lately). */
  mayDispatch?: () => boolean;
}

/**
 * Sends answered but not yet settled (their outcome committing) per send the upstream may hold at once: when commits
 * slow down (a burst being accepted beside them), the upstream's answers keep freeing room for the next sends instead
 * of every slot waiting for the database, within a bound. A queue worker takes this many jobs at once (send-queue.ts).
 */
export const UNSETTLED_PER_IN_FLIGHT = 4;

/**
 * Decides what is sent when, for either driver: holds the ids of queued submissions, asks the fair scheduler and the
 * limiter hierarchy (§8) what may go now, hands each allowed send to the transport, and applies the verdict that
 * comes back. The database stays the source of truth: `reconcile` rebuilds from it whatever is queued.
 */
export class Dispatcher {
  readonly #store: SubmissionStore;
  readonly #credentials: UpstreamCredentialStore;
  readonly #transaction: GatewayContext["transaction"];
  readonly #log: GatewayContext["log"];
  readonly #limiter: LimiterHierarchy;
  readonly #scheduler: FairScheduler;
  readonly #maxInFlight: number;
  readonly #delayed: { at: number; ready: Ready }[] = [];
  /** Sends reserved and not yet settled (their verdict not applied), by submission. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Of those, the sends whose upstream answer has not come: what `maxInFlight` bounds. */
  #awaitingAnswer = 0;
  readonly #known = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #closing = false;
  readonly #tenants: TenantStore;
  /**
   * Each company's own upstream limits (§8 levels it set lower) for the limiter's synchronous lookup, read when a
   * submission is admitted whose route has no limiter nodes yet (#admit).
   */
  readonly #companyLimits = new Map<string, CompanyRow["limits"] | null>();
  /** Reads of a company's limits under way: admissions meanwhile share one. */
  readonly #limitsReads = new Map<string, Promise<void>>();
  /**
   * Admission, re-admission and the reconciler's reads wait out an outage of the database (D-330): a submission being
   * admitted is never dropped from memory, and the outage is logged once, not once per row.
   */
  readonly #outage: OutageRetry;
  readonly #closed = new AbortController();
  readonly #outages: GatewayContext["outages"];
  readonly #forgetRecovery: () => void;

  constructor(
    ctx: GatewayContext,
    private readonly options: DispatcherOptions,
  ) {
    this.#outages = ctx.outages;
    this.#outage = ctx.outages.retry({ name: "forwarding dispatcher", signal: this.#closed.signal });
    // The sends held back while the database was away go as soon as it is back.
    this.#forgetRecovery = ctx.outages.onRecovered(() => this.#pump());
    this.#store = ctx.submissions;
    this.#credentials = ctx.credentials;
    this.#transaction = ctx.transaction;
    this.#log = ctx.log;
    this.#maxInFlight = options.maxInFlight ?? 64;
    this.#tenants = ctx.tenants;
    // Read in #admit before the route's nodes are built, so that the limiter's lookup stays synchronous.
    const companyLimits = (companyId: string) => this.#companyLimits.get(companyId) ?? null;
    this.#limiter = new LimiterHierarchy(options.limits ?? SPEC_FORWARDING_LIMITS, companyLimits, options.history);
    this.#scheduler = new FairScheduler(this.#limiter);
  }

  get backlog(): number {
    return this.#scheduler.size + this.#delayed.length;
  }

  /** Submissions sent right now (their answers not yet in). */
  get inFlight(): string[] {
    return [...this.#inFlight.keys()];
  }

  /**
   * Submissions still queued on a paused credential wait with the others (`credentialId`: that one only, else all).
   * Intake queues whatever it accepts, so a submission accepted while the pause was being committed, or whose notice
   * was lost, would otherwise stay queued: the dispatcher admits only active credentials' submissions. One immediate
   * transaction: a rotation committed meanwhile cannot leave its submissions parked after it resumed them.
   */
  async #parkOnPausedCredentials(now: number, credentialId?: string): Promise<void> {
    // Most passes find no paused credential: then no transaction, whose database-wide lock on PostgreSQL would wait for
    // every outcome committing and hold the next ones (D-273). One paused after this read is parked by its own outcome
    // (the pause commits with its submissions waiting), its verdict's pass, or the next reconcile.
    if ((await this.#wait(() => this.#credentials.inactive(credentialId))).length === 0) return;
    await this.#wait(() =>
      this.#transaction(async (tx) => {
        for (const paused of await tx.credentials.inactive(credentialId)) {
          await tx.submissions.parkOnCredential(paused.id, paused.reason, now);
        }
      }, "immediate"),
    );
  }

  /** One step on the database, waiting out its outages (rejects with OutageRetryClosedError once closed). */
  #wait<T>(step: () => Promise<T>): Promise<T> {
    return this.#outage.run(step);
  }

  /** Admits every queued submission of the database not yet known (start, takeover, a lost notice). */
  async reconcile(now = Date.now()): Promise<void> {
    if (this.#closing) return;
    await this.#wait(() => this.#store.releaseOrphanedDependents(now));
    await this.#parkOnPausedCredentials(now);
    // One read of a company's limits for the whole pass, not one per row: its nodes are built after it (#pump).
    const limitsRead = new Set<string>();
    const active = await this.#wait(() => this.#credentials.activeIds());
    for (const row of await this.#wait(() => this.#store.loadQueued(active))) {
      await this.#admit(row, now, limitsRead);
    }
    this.#pump();
  }

  /** A committed, queued submission to forward. Harmless to repeat (deduplicated by id). */
  notify(row: Admissible): void {
    if (this.#closing) return;
    this.#admit(row, Date.now()).then(
      () => this.#pump(),
      (error: unknown) => {
        // Not admitted (a refused statement, or closing): the next reconcile finds it queued.
        this.#known.delete(row.id);
        if (!(error instanceof OutageRetryClosedError)) {
          this.#log.error({ err: error, submissionId: row.id }, "submission not admitted");
        }
      },
    );
  }

  /** notifyId for a verdict: its read waits out an outage; a refused one leaves the submission to the next reconcile. */
  #notifyLater(submissionId: string): void {
    this.notifyId(submissionId).catch((error: unknown) => {
      if (error instanceof OutageRetryClosedError) return;
      this.#log.error({ err: error, submissionId }, "submission not re-admitted");
    });
  }

  /** A submission named by a notice from another process: admitted if the database says it is queued. */
  async notifyId(submissionId: string): Promise<void> {
    const row = await this.#wait(() => this.#store.get(submissionId));
    if (row?.status === "queued") this.notify(row);
  }

  /** The limiter's history, for the next dispatcher; a send still in flight counts as answered at its bound. */
  history(now = Date.now()): LimiterHistory {
    return this.#limiter.snapshot(now + this.options.sendBoundMs, now);
  }

  /** No new sends; resolves when in-flight sends are answered or the deadline passes, with those still in flight. */
  async close(deadlineMs: number): Promise<string[]> {
    this.#closing = true;
    this.#closed.abort();
    this.#forgetRecovery();
    clearTimeout(this.#timer);
    const pending = [...this.#inFlight.values()];
    await settledWithin(pending, deadlineMs);
    return this.inFlight;
  }

  /** `limitsRead`: companies whose limits this pass (a reconcile) has read already. */
  async #admit(row: Admissible, now: number, limitsRead?: Set<string>): Promise<void> {
    if (this.#known.has(row.id)) return;
    // Known at once: a repeated notice while this one awaits the database is a duplicate.
    this.#known.add(row.id);
    // An appointment naming a lead submission waits until that lead is settled (appointment chaining, docs/forwarding.md).
    const leadId = chainedLead(row);
    if (leadId && (await this.#wait(() => this.#store.holdForLead(row.id, leadId, now)))) {
      this.#known.delete(row.id);
      return;
    }
    // A limiter node takes its company's limits as they are when it is built (hierarchy.ts), and keeps them: read again
    // for every route whose nodes are not built yet (a credential added later takes the limits of then, not those
    // read at the company's first admission).
    if (!this.#limiter.built(row) && !limitsRead?.has(row.companyId)) {
      await this.#readLimits(row.companyId);
      limitsRead?.add(row.companyId);
    }
    const ready: Ready = { submissionId: row.id, credentialId: row.credentialId, companyId: row.companyId };
    if (row.nextAttemptAt && row.nextAttemptAt > now) this.#delay(ready, row.nextAttemptAt);
    else this.#scheduler.enqueue(ready);
  }

  async #readLimits(companyId: string): Promise<void> {
    let read = this.#limitsReads.get(companyId);
    if (!read) {
      read = this.#wait(() => this.#tenants.companyLimits(companyId))
        .then((limits) => {
          this.#companyLimits.set(companyId, limits);
        })
        .finally(() => this.#limitsReads.delete(companyId));
      this.#limitsReads.set(companyId, read);
    }
    await read;
  }

  #delay(ready: Ready, at: number): void {
    let i = this.#delayed.length;
    while (i > 0 && (this.#delayed[i - 1]?.at ?? 0) > at) i--;
    this.#delayed.splice(i, 0, { at, ready });
  }

  /** Looks again at what may be sent (the fence reopened). */
  wake(): void {
    this.#pump();
  }

  /**
   * Whether sends may be reserved now: the driver's fence, and no outage of the database or Redis here — a send
   * reserved then would hold its limiter slots while its claim or its job waits (D-330); the recovery pumps again.
   */
  #mayDispatch(): boolean {
    return this.options.mayDispatch?.() !== false && !this.#outages.down();
  }

  #pump(): void {
    if (this.#closing || !this.#mayDispatch()) return;
    const now = Date.now();
    while (this.#delayed.length > 0 && (this.#delayed[0]?.at ?? Number.POSITIVE_INFINITY) <= now) {
      const due = this.#delayed.shift();
      if (due) this.#scheduler.enqueue(due.ready);
    }
    let wakeAt = this.#delayed[0]?.at ?? Number.POSITIVE_INFINITY;
    while (
      this.#awaitingAnswer < this.#maxInFlight &&
      this.#inFlight.size < this.#maxInFlight * UNSETTLED_PER_IN_FLIGHT
    ) {
      const take = this.#scheduler.take(now);
      if ("ready" in take) {
        const { submissionId } = take.ready;
        const work = this.#send(take.ready, now, take.answered).finally(() => {
          this.#inFlight.delete(submissionId);
          this.#pump();
        });
        this.#inFlight.set(submissionId, work);
        continue;
      }
      if ("wakeAt" in take) wakeAt = Math.min(wakeAt, take.wakeAt);
      break;
    }
    this.#schedule(wakeAt);
  }

  #schedule(at: number): void {
    if (!Number.isFinite(at)) return;
    if (this.#timer && this.#timerAt <= at) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, Math.ceil(at - Date.now())),
    );
  }

  async #send(ready: Ready, now: number, answered: (at: number) => void): Promise<void> {
    const send: ReservedSend = {
      ready,
      sendId: `${ready.submissionId}-${now}`,
      reservedAt: now,
      bound: now + this.options.sendBoundMs,
    };
    const logs = this.#limiter.logsOf(ready);
    const nodes = nodesOf(ready).map((name, i) => ({
      name,
      limit: logs[i]?.limit ?? 1,
      windowMs: logs[i]?.windowMs ?? 0,
    }));
    this.options.observer?.reserved(nodes, send);
    this.#awaitingAnswer++;
    let open = true;
    // The send's slots close at its answer (whether or not a request went out, the upstream has counted it, if at all,
    // by then), heard early from the transport or with the result; the room it frees is looked at once.
    const close = (answeredAt: number) => {
      if (!open) return;
      open = false;
      this.#awaitingAnswer--;
      const at = Math.min(answeredAt, send.bound);
      answered(at);
      this.options.observer?.answered(nodes, send, at);
    };
    const result = await this.options.transport
      .send(send, (at) => {
        close(at);
        // Not from inside the pump that is making this send (a transport may answer at once).
        queueMicrotask(() => this.#pump());
      })
      .catch((error: unknown): SendResult => {
        if (!(error instanceof OutageRetryClosedError)) {
          this.#log.error({ err: error, submissionId: ready.submissionId }, "forwarding send failed");
        }
        return { verdict: null, answeredAt: send.bound };
      });
    close(result.answeredAt);
    this.#apply(ready, result.verdict);
  }

  #apply(ready: Ready, verdict: Verdict | null): void {
    const { submissionId, credentialId } = ready;
    if (this.#closing) return;
    switch (verdict?.kind) {
      case undefined:
      case "reread":
        // No answer came: the database knows whether it was sent; queued again it goes again (a lead merges and an
        // appointment replays, §4.2), held by a live lease it is found by the next reconcile. Or the attempt did not
        // send (its claim waited out an outage past its slot), or found its outcome committed already (D-334).
        this.#known.delete(submissionId);
        this.#notifyLater(submissionId);
        return;
      case "settled":
        this.#known.delete(submissionId);
        for (const id of verdict.released) this.#notifyLater(id);
        return;
      case "retry":
        this.#delay(ready, verdict.at);
        return;
      case "rate_limited":
        this.#limiter.pause(credentialId, verdict.until);
        this.options.observer?.paused(credentialId, verdict.until);
        this.#scheduler.enqueue(ready, { front: true });
        return;
      case "credential_paused":
        for (const item of this.#scheduler.drainCredential(credentialId)) this.#known.delete(item.submissionId);
        this.#known.delete(submissionId);
        // Accepted and admitted after the pause was committed (the verdict travelled from a worker meanwhile).
        this.#parkOnPausedCredentials(Date.now(), credentialId).catch((error: unknown) => {
          // The next reconcile parks them.
          if (error instanceof OutageRetryClosedError) return;
          this.#log.error({ err: error, credentialId }, "submissions not parked on the paused credential");
        });
        return;
      case "skipped":
        this.#known.delete(submissionId);
        return;
    }
  }
}
