import { eq } from "drizzle-orm";
import { companies, upstreamCredentials } from "../../db/schema/index.js";
import type { GatewayContext } from "../context.js";
import { openUpstreamCredential } from "../credentials/upstream-credentials.js";
import { upstreamKey } from "../intake/accept-submission.js";
import type { SubmissionRow } from "../intake/submission-view.js";
import { FairScheduler, type Ready } from "./fair-scheduler.js";
import { LimiterHierarchy } from "./hierarchy.js";
import { type ForwardingLimits, SPEC_FORWARDING_LIMITS } from "./limits.js";
import { classify, DEFAULT_RETRY, nextAttemptAt, type RetryPolicy } from "./retry-policy.js";
import { SubmissionStore } from "./submission-store.js";
import { postUpstream, type UpstreamResponse } from "./upstream-client.js";

export interface ForwarderOptions {
  upstreamUrl: string;
  limits?: ForwardingLimits;
  retry?: RetryPolicy;
  /** How long one upstream call may take. */
  timeoutMs?: number;
  /** Upstream calls in flight at once. */
  maxInFlight?: number;
  /** Called after a submission's final state (forwarded or failed) is committed. */
  onSettled?: (row: SubmissionRow) => void;
  random?: () => number;
}

type Settled = (row: SubmissionRow) => void;

/**
 * The embedded forwarding driver: dispatches from the database what may be sent now. Accepted submissions are
 * committed by intake first; the forwarder holds only ids in memory and rebuilds them from the database on start, so
 * a crash loses nothing (a submission caught mid-send is sent again: leads merge and appointments replay, §4.2).
 */
export class Forwarder {
  readonly #ctx: GatewayContext;
  readonly #store: SubmissionStore;
  readonly #limiter: LimiterHierarchy;
  readonly #scheduler: FairScheduler;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #maxInFlight: number;
  readonly #random: () => number;
  readonly #delayed: { at: number; ready: Ready }[] = [];
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #known = new Set<string>();
  readonly #waiters = new Map<string, Set<Settled>>();
  readonly #keys = new Map<string, { version: number; value: string }>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #closing = false;

  constructor(
    ctx: GatewayContext,
    private readonly options: ForwarderOptions,
  ) {
    this.#ctx = ctx;
    this.#store = new SubmissionStore(ctx);
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#maxInFlight = options.maxInFlight ?? 64;
    this.#random = options.random ?? Math.random;
    this.#limiter = new LimiterHierarchy(options.limits ?? SPEC_FORWARDING_LIMITS, (companyId) => {
      const row = ctx.db.select({ limits: companies.limits }).from(companies).where(eq(companies.id, companyId)).get();
      return row?.limits ?? null;
    });
    this.#scheduler = new FairScheduler(this.#limiter);
  }

  /** Recovers what a previous process left (one process owns the embedded queue) and starts dispatching. */
  start(): void {
    const now = Date.now();
    // The embedded queue has one owner: whatever was mid-send belongs to a process that is gone.
    this.#store.releaseExpiredLeases(Number.POSITIVE_INFINITY, now);
    this.#store.releaseOrphanedDependents(now);
    for (const row of this.#store.loadQueued()) this.#admit(row, now);
    this.#pump();
  }

  /** Intake tells the forwarder about a committed submission. Harmless to repeat (deduplicated by id). */
  notify(row: SubmissionRow): void {
    if (this.#closing || row.status !== "queued") return;
    this.#admit(row, Date.now());
    this.#pump();
  }

  /** A rotated credential resumes the submissions that waited on it. */
  credentialRotated(credentialId: string): void {
    this.#keys.delete(credentialId);
    this.#store.resumeCredential(credentialId, Date.now());
    for (const row of this.#store.loadQueued()) if (row.credentialId === credentialId) this.#admit(row, Date.now());
    this.#pump();
  }

  /** Resolves with the submission once it is forwarded or failed, or undefined after `timeoutMs` (sync answers). */
  waitFor(submissionId: string, timeoutMs: number): Promise<SubmissionRow | undefined> {
    const current = this.#store.get(submissionId);
    if (!current || current.status === "forwarded" || current.status === "failed") return Promise.resolve(current);
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(submissionId) ?? new Set<Settled>();
      const done: Settled = (row) => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve(row);
      };
      const timer = setTimeout(() => {
        waiters.delete(done);
        resolve(undefined);
      }, timeoutMs);
      waiters.add(done);
      this.#waiters.set(submissionId, waiters);
    });
  }

  get backlog(): number {
    return this.#scheduler.size + this.#delayed.length;
  }

  /** Graceful stop: no new sends; in-flight calls get until the deadline; leases of the rest are released. */
  async close(deadlineMs = 5_000): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#timer);
    const pending = [...this.#inFlight.values()];
    await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, deadlineMs).unref())]);
    this.#store.releaseLeases([...this.#inFlight.keys()]);
  }

  #admit(row: SubmissionRow, now: number): void {
    if (this.#known.has(row.id)) return;
    if (row.kind === "appointment" && this.#waitsForLead(row, now)) return;
    this.#known.add(row.id);
    const ready: Ready = { submissionId: row.id, credentialId: row.credentialId, companyId: row.companyId };
    if (row.nextAttemptAt && row.nextAttemptAt > now) this.#delay(ready, row.nextAttemptAt);
    else this.#scheduler.enqueue(ready);
  }

  /** An appointment naming a lead submission waits until that lead is forwarded (issue #4, appointment chaining). */
  #waitsForLead(row: SubmissionRow, now: number): boolean {
    const leadId = String(row.canonicalBody?.leadId ?? "");
    if (!leadId.startsWith("sub_")) return false;
    const lead = this.#store.get(leadId);
    if (lead && (lead.status === "forwarded" || lead.status === "failed")) return false;
    this.#store.settle(row.id, now, { status: "waiting", waitingReason: `waiting for lead submission ${leadId}` });
    return true;
  }

  #delay(ready: Ready, at: number): void {
    let i = this.#delayed.length;
    while (i > 0 && (this.#delayed[i - 1]?.at ?? 0) > at) i--;
    this.#delayed.splice(i, 0, { at, ready });
  }

  #pump(): void {
    if (this.#closing) return;
    const now = Date.now();
    while (this.#delayed.length > 0 && (this.#delayed[0]?.at ?? Number.POSITIVE_INFINITY) <= now) {
      const due = this.#delayed.shift();
      if (due) this.#scheduler.enqueue(due.ready);
    }
    let wakeAt = this.#delayed[0]?.at ?? Number.POSITIVE_INFINITY;
    while (this.#inFlight.size < this.#maxInFlight) {
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
    try {
      await this.#attempt(ready, now);
    } finally {
      // Whether or not a request went out, the upstream has counted it (if at all) by now.
      answered(Date.now());
    }
  }

  async #attempt(ready: Ready, now: number): Promise<void> {
    const row = this.#store.get(ready.submissionId);
    if (!row || (row.status !== "queued" && row.status !== "forwarding")) {
      this.#known.delete(ready.submissionId);
      return;
    }
    const request = this.#request(row);
    if ("fail" in request) {
      this.#finish(row, { status: "failed", lastError: request.fail }, now);
      return;
    }
    const apiKey = this.#apiKey(row.credentialId);
    if (typeof apiKey !== "string") {
      // Accepted while its credential is paused: it waits with the others until the credential is rotated.
      this.#store.settle(row.id, now, { status: "waiting", waitingReason: `credential paused: ${apiKey.paused}` });
      this.#known.delete(row.id);
      return;
    }
    this.#store.lease(row.id, now, this.#timeoutMs + 5_000);
    const response = await postUpstream({
      baseUrl: this.options.upstreamUrl,
      path: row.kind === "lead" ? "/api/inbound/leads" : "/api/inbound/appointments",
      apiKey,
      body: request.body,
      timeoutMs: this.#timeoutMs,
      requestId: row.id,
    });
    this.#handle(row, response, request.idempotencyKey);
  }

  /** The body sent upstream: the canonical body, with a chained lead's real id and the derived idempotency key. */
  #request(row: SubmissionRow): { body: Record<string, unknown>; idempotencyKey: string | null } | { fail: string } {
    const body = { ...(row.canonicalBody ?? {}) };
    if (row.kind === "lead") return { body, idempotencyKey: null };
    const leadId = String(body.leadId ?? "");
    if (leadId.startsWith("sub_")) {
      const lead = this.#store.get(leadId);
      const result = lead?.result as { leadId?: string; projectId?: string } | null | undefined;
      if (!lead || lead.status === "failed")
        return { fail: `lead submission ${leadId} failed: ${lead?.lastError ?? "unknown"}` };
      if (!result?.leadId) {
        return {
          fail: `lead submission ${leadId} merged into sold project ${result?.projectId ?? "?"} without a leadId`,
        };
      }
      body.leadId = result.leadId;
    }
    const idempotencyKey =
      row.upstreamIdempotencyKey ??
      upstreamKey(row.vendorKeyId, String(body.idempotencyKey), row.upstreamKeyGeneration);
    body.idempotencyKey = idempotencyKey;
    return { body, idempotencyKey };
  }

  #apiKey(credentialId: string): string | { paused: string } {
    const row = this.#ctx.db.select().from(upstreamCredentials).where(eq(upstreamCredentials.id, credentialId)).get();
    if (!row) return { paused: "credential deleted" };
    if (row.status !== "active") return { paused: row.pausedReason ?? "paused" };
    const cached = this.#keys.get(credentialId);
    if (cached && cached.version === row.version) return cached.value;
    const value = openUpstreamCredential(this.#ctx, row);
    this.#keys.set(credentialId, { version: row.version, value });
    return value;
  }

  #handle(row: SubmissionRow, response: UpstreamResponse, idempotencyKey: string | null): void {
    const now = Date.now();
    const outcome = classify(response.status, response.retryAfter);
    this.#store.recordAttempt(
      row,
      response,
      outcome.kind !== "rate_limited" && outcome.kind !== "credential_rejected",
      idempotencyKey,
    );
    if (response.apiVersion)
      this.#ctx.log.debug({ submissionId: row.id, apiVersion: response.apiVersion }, "upstream version");
    const ready: Ready = { submissionId: row.id, credentialId: row.credentialId, companyId: row.companyId };
    switch (outcome.kind) {
      case "success":
        this.#finish(
          row,
          {
            status: "forwarded",
            attempts: row.attempts + 1,
            upstreamStatus: response.status,
            result: (response.body ?? {}) as Record<string, unknown>,
            lastError: null,
            forwardedAt: new Date(now).toISOString(),
          },
          now,
        );
        return;
      case "rate_limited": {
        // A 429 that still arrives: pause the credential for retry-after plus jitter; no attempt consumed.
        this.#limiter.pause(row.credentialId, now + outcome.retryAfterMs + this.#random() * 250);
        this.#store.settle(row.id, now, { status: "queued", lastError: response.error, upstreamStatus: 429 });
        this.#scheduler.enqueue(ready, { front: true });
        this.#ctx.log.warn({ submissionId: row.id, credentialId: row.credentialId }, "upstream answered 429");
        return;
      }
      case "credential_rejected": {
        const reason = response.error ?? `upstream ${response.status}`;
        this.#store.pauseCredential(row.credentialId, reason, now);
        for (const item of this.#scheduler.drainCredential(row.credentialId)) this.#known.delete(item.submissionId);
        this.#known.delete(row.id);
        this.#ctx.log.warn(
          { credentialId: row.credentialId, reason },
          "upstream credential rejected: paused until rotated",
        );
        return;
      }
      case "retryable": {
        const attempts = row.attempts + 1;
        const at = nextAttemptAt(this.#retry, attempts, row.firstSentAt ?? now, now, this.#random);
        if (at === null) {
          this.#finish(
            row,
            { status: "failed", attempts, upstreamStatus: response.status, lastError: response.error },
            now,
          );
          return;
        }
        this.#store.settle(row.id, now, {
          status: "queued",
          attempts,
          nextAttemptAt: Math.round(at),
          upstreamStatus: response.status,
          lastError: response.error,
        });
        this.#delay(ready, at);
        return;
      }
      case "permanent":
        this.#finish(
          row,
          { status: "failed", attempts: row.attempts + 1, upstreamStatus: response.status, lastError: response.error },
          now,
        );
        return;
    }
  }

  #finish(row: SubmissionRow, change: Parameters<SubmissionStore["settle"]>[2], now: number): void {
    const { settled, released } = this.#store.settleReleasing(row.id, now, {
      ...change,
      nextAttemptAt: null,
      waitingReason: null,
    });
    this.#known.delete(row.id);
    if (!settled) return;
    for (const dependent of released) this.#admit(dependent, now);
    for (const waiter of this.#waiters.get(row.id) ?? []) waiter(settled);
    this.#waiters.delete(row.id);
    try {
      this.options.onSettled?.(settled);
    } catch (error) {
      this.#ctx.log.error({ err: error, submissionId: row.id }, "onSettled hook failed");
    }
  }
}
