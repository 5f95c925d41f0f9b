import { type Span, SpanKind } from "@opentelemetry/api";
import type { GatewayContext } from "../context.js";
import type { PauseBoard } from "../coordination/index.js";
import { openUpstreamCredential } from "../credentials/upstream-credentials.js";
import { type OutageRetry, OutageRetryClosedError } from "../outage/index.js";
import type { SubmissionChange, SubmissionRow, SubmissionStore } from "../storage/submissions/index.js";
import type { TransactionContext, TransactionScope } from "../storage/transaction.js";
import type { SettlementRecorder } from "../submissions/settlement-recorder.js";
import { childSpan, endFailed } from "../tracing/index.js";
import { type Claim, claimThroughOutage, holds } from "./claim.js";
import { classify, DEFAULT_SEND_RETRY, nextSendAt, type Outcome, type SendRetryPolicy } from "./send-retry.js";
import { postUpstream, type UpstreamResponse } from "./upstream-client.js";
import { upstreamRequest } from "./upstream-request.js";

/**
 * What the queue does after one attempt, whose outcome is already committed. Plain JSON, so a worker process can hand
 * it back to the dispatcher of another process.
 */
export type Verdict =
  /** Forwarded or failed; `released`: appointments that waited for this lead and are queued now. */
  | { kind: "settled"; released: string[] }
  /** §7: 5xx, network error or timeout: again at `at`, the same idempotency key. */
  | { kind: "retry"; at: number }
  /** §7: 429: the credential pauses until `until`; the submission goes first when it resumes, no attempt consumed. */
  | { kind: "rate_limited"; until: number }
  /** 401/403: the credential is paused, its submissions wait until it is rotated. */
  | { kind: "credential_paused" }
  /** Nothing was sent: the submission is no longer queued, waits, or another holder has it. */
  | { kind: "skipped" }
  /**
   * Ask the database (D-334): nothing was sent because the send came too late to its limiter slot (the claim waited
   * out an outage), or the outcome is there already (a commit whose answer was lost). The dispatcher reads the row.
   */
  | { kind: "reread" };

/** A verdict, and the submission if it settled (its hooks run once the outcome is committed). */
interface Handled {
  verdict: Verdict;
  settled?: SubmissionRow;
  /** What the settlement recorder asked to do once the outcome is committed. */
  afterCommit?: () => void;
}

export interface AttemptOptions {
  upstreamUrl: string;
  retry?: SendRetryPolicy;
  /** How long one upstream call may take. */
  timeoutMs?: number;
  /** Writes what a settled submission is owed, in its outcome's transaction (the gateway's webhooks). */
  settlement?: SettlementRecorder;
  /** Called after a submission's final state (forwarded or failed) is committed. */
  onSettled?: (row: SubmissionRow) => void;
  random?: () => number;
  /**
   * Where 429 pauses are shared at once between processes that send (the BullMQ driver's workers). Without it the
   * pause travels back with the verdict to the one dispatcher, and sends already handed to other workers go out into
   * it.
   */
  pauses?: PauseBoard;
}

/**
 * One attempt to forward one submission, and everything its outcome changes in the database (§7). Both drivers run
 * exactly this; they differ only in how the attempt is scheduled and where its verdict goes.
 */
export class SubmissionAttempt {
  readonly #ctx: GatewayContext;
  readonly #store: SubmissionStore;
  readonly #retry: SendRetryPolicy;
  readonly #random: () => number;
  readonly #keys = new Map<string, { version: number; value: string }>();
  /** 429 pauses this process received, by credential: until when (ms). */
  readonly #paused = new Map<string, number>();
  readonly timeoutMs: number;
  /** Every read and write of an attempt waits out an outage of the database (D-330): it is never dropped. */
  readonly #outage: OutageRetry;
  readonly #closed = new AbortController();

  constructor(
    ctx: GatewayContext,
    private readonly options: AttemptOptions,
  ) {
    this.#ctx = ctx;
    this.#store = ctx.submissions;
    this.#retry = options.retry ?? DEFAULT_SEND_RETRY;
    this.#random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.#outage = ctx.outages.retry({ name: "forwarding attempts", signal: this.#closed.signal });
  }

  /** How long a claim holds its submission: the call's timeout, and 5 s for its outcome to commit. */
  get leaseMs(): number {
    return this.timeoutMs + 5_000;
  }

  /**
   * Stops waiting for the database: attempts waiting for it reject (OutageRetryClosedError) and their submissions are
   * left as the database has them, for the next start (a claim's lease runs out; an answer not committed is sent
   * again then, as after a crash).
   */
  close(): void {
    this.#closed.abort();
  }

  /**
   * Sends the submission once if it is due, and records the outcome. `answeredAt`: when the upstream's answer (or the
   * failure) came, before the outcome's commit — the latest the request can have reached the upstream, which is what
   * the limiter's slots hold (docs/forwarding.md); without a send, when it was decided. `onAnswered` hears that time
   * as soon as the answer came, before the commit, unless the answer was a 429 or a refused key.
   */
  async run(
    submissionId: string,
    onAnswered?: (answeredAt: number) => void,
    sendBy?: number,
    credentialId?: string,
  ): Promise<{ verdict: Verdict; answeredAt: number }> {
    const answer: { at?: number } = {};
    const verdict = await this.#run(submissionId, answer, onAnswered, sendBy, credentialId);
    return { verdict, answeredAt: answer.at ?? Date.now() };
  }

  /**
   * `sendBy`: the latest time the request may leave, or it is not sent (`reread`): its limiter slot closes at the
   * send's bound, and a claim that waited out an outage of the database must not send outside it (D-334).
   * `credentialId`: the submission's credential as the dispatcher knows it, so that its key is read beside the claim.
   */
  async #run(
    submissionId: string,
    answer: { at?: number },
    onAnswered: ((answeredAt: number) => void) | undefined,
    sendBy: number | undefined,
    credentialId: string | undefined,
  ): Promise<Verdict> {
    const now = Date.now();
    const wait = <T>(step: () => Promise<T>) => this.#outage.run(step);
    // The claim is the send's one read of its submission (it answers with the row), and the credential's key is read
    // at the same time: one round trip to the database before the send, not four one after another (D-361).
    const [claim, early] = await Promise.all([
      claimThroughOutage(this.#outage, this.#store, submissionId, this.leaseMs),
      credentialId === undefined ? undefined : wait(() => this.#apiKey(credentialId)),
    ]);
    if (!claim) return { kind: "skipped" };
    const { row } = claim;
    // Nothing sent after all: the claim given back as the row was.
    const unclaim = () => wait(() => this.#store.unclaim(row.id, claim.firstSentBefore));
    const request = await wait(() => upstreamRequest(this.#store, row));
    if ("fail" in request) {
      const failed = { status: "failed" as const, lastError: request.fail, firstSentAt: claim.firstSentBefore };
      return this.#announce(
        await this.#commitOnce(row, claim, (tx) => this.#finish(tx, row, failed, Date.now(), undefined), now),
      );
    }
    const key =
      early !== undefined && credentialId === row.credentialId
        ? early
        : await wait(() => this.#apiKey(row.credentialId));
    if ("paused" in key) {
      // Accepted while its credential is paused: it waits with the others until the credential is rotated.
      const waiting = {
        status: "waiting" as const,
        waitingReason: `credential paused: ${key.paused}`,
        firstSentAt: claim.firstSentBefore,
      };
      await wait(() => this.#store.settle(row.id, now, waiting));
      return { kind: "skipped" };
    }
    if (sendBy !== undefined && Date.now() > sendBy) {
      // The claim waited out an outage past the send's slot: given back unsent, and dispatched again.
      await unclaim();
      return { kind: "reread" };
    }
    // A 429 another sender received holds this one too: not sent, no attempt consumed, first in line on resume.
    // Read after the claim, whose write may wait for the database, so that as little time as possible separates the
    // check from the send. Redis away: the verdict still carries any pause of this send to the dispatcher.
    const shared = await this.options.pauses?.pausedUntil(row.credentialId).catch(() => undefined);
    // This process's own 429s count at once: another send may have had one while the shared board was being read.
    const pausedUntil = Math.max(shared ?? 0, this.#paused.get(row.credentialId) ?? 0);
    if (pausedUntil > Date.now()) {
      await unclaim();
      return { kind: "rate_limited", until: pausedUntil };
    }
    const path = row.kind === "lead" ? "/api/inbound/leads" : "/api/inbound/appointments";
    // One span per send, in the lead's trace whatever process accepted it (its row carries the trace, D-351); the
    // platform gets it as the request's parent (W3C traceparent).
    const span = this.#ctx.tracing.start(`POST ${path}`, {
      parent: row.traceParent,
      kind: SpanKind.CLIENT,
      attributes: {
        "http.request.method": "POST",
        "url.path": path,
        "gateway.submission.id": row.id,
        "gateway.attempt": row.attempts + 1,
      },
    });
    const response = await postUpstream({
      baseUrl: this.options.upstreamUrl,
      path,
      apiKey: key.value,
      body: request.body,
      timeoutMs: this.timeoutMs,
      requestId: row.id,
      traceparent: this.#ctx.tracing.traceparent(span),
    });
    answer.at = Date.now();
    const outcome = classify(response.status, response.retryAfter);
    if (response.status !== null) span.setAttribute("http.response.status_code", response.status);
    span.setAttribute("gateway.outcome", outcome.kind);
    // The upstream is done with it: its slots may close before the outcome commits, which may wait for the database
    // (docs/forwarding.md, "Answered before committed"). Not for a 429 or a refused key, whose verdict changes the
    // limiter itself (a pause, a probe) and must reach it first.
    if (outcome.kind !== "rate_limited" && outcome.kind !== "credential_rejected") onAnswered?.(answer.at);
    // A 429 pauses the credential for retry-after plus jitter. Shared before the commit, which may wait for the
    // database, so that other workers hold their sends as soon as possible.
    const pauseUntil =
      outcome.kind === "rate_limited" ? Date.now() + outcome.retryAfterMs + this.#random() * 250 : undefined;
    if (pauseUntil !== undefined) {
      this.#paused.set(row.credentialId, Math.max(pauseUntil, this.#paused.get(row.credentialId) ?? 0));
      await this.options.pauses?.pause(row.credentialId, pauseUntil).catch((error: Error) => {
        // The verdict still carries the pause to the dispatcher; only other workers' queued sends may miss it.
        this.#ctx.log.warn({ err: error.message, credentialId: row.credentialId }, "429 pause not shared");
      });
    }
    // The attempt, its outcome and what a settled submission is owed commit together, the credential's write lock taken
    // at once (other processes write too; other credentials' outcomes commit beside it, D-273). The answer is kept here
    // until that commit lands: an outage of the database is waited out, never answered by sending again (D-334).
    let handled: Handled;
    try {
      handled = await this.#commitOnce(
        row,
        claim,
        (tx) =>
          this.#handle(tx, row, response, outcome, {
            pauseUntil,
            idempotencyKey: request.idempotencyKey,
            keyVersion: key.version,
            answeredAt: answer.at ?? Date.now(),
            span,
          }),
        now,
      );
    } catch (error) {
      endFailed(span, error);
      if (error instanceof OutageRetryClosedError) throw error;
      // The database refused the outcome itself (not an outage): nothing of it committed, and the submission goes again
      // later, as after a crash (a lead merges, an appointment replays its idempotency key, §4.2).
      this.#ctx.log.error({ err: error, submissionId: row.id }, "outcome not committed: the submission goes again");
      await unclaim();
      const at = nextSendAt(this.#retry, row.attempts + 1, claim.firstSentBefore ?? now, Date.now(), this.#random);
      return { kind: "retry", at: at ?? Date.now() + this.#retry.baseMs };
    }
    if (outcome.kind !== "success")
      span.setAttribute("error.type", response.status === null ? "network" : outcome.kind);
    span.end();
    return this.#announce(handled);
  }

  /**
   * An outcome's transaction, tried until the database takes it (D-334). A try that fails may still have committed
   * (its connection died after COMMIT went out): every later try first reads the row, and finds its own outcome there
   * when the claim it held is gone — then nothing is written twice, and the dispatcher reads the row (`reread`). A row
   * failed before any claim (`claim` undefined) is done when it is no longer queued or being sent.
   */
  async #commitOnce(
    row: SubmissionRow,
    claim: Claim | undefined,
    work: (tx: TransactionContext) => Promise<Handled>,
    now: number,
  ): Promise<Handled> {
    let tries = 0;
    return this.#outage
      .run(() =>
        this.#ctx.transaction(
          async (tx) => {
            if (tries++ > 0) {
              const current = await tx.submissions.get(row.id);
              const ours = claim
                ? current !== undefined && holds(current, [claim.leaseUntil])
                : current?.status === "queued" || current?.status === "forwarding";
              if (!ours) return this.#recordedBefore(current);
            }
            return work(tx);
          },
          "immediate",
          outcomeScope(row),
        ),
      )
      .finally(() => {
        if (tries > 1)
          this.#ctx.log.debug({ submissionId: row.id, tries, ms: Date.now() - now }, "outcome committed late");
      });
  }

  /** The outcome an earlier try committed (its answer lost): what is settled is announced, the rest read again. */
  #recordedBefore(current: SubmissionRow | undefined): Handled {
    if (current && (current.status === "forwarded" || current.status === "failed")) {
      return { verdict: { kind: "reread" }, settled: current };
    }
    return { verdict: { kind: "reread" } };
  }

  /** After the commit: what the settlement recorder left to do, then the settled hook (sync answers). */
  #announce({ verdict, settled, afterCommit }: Handled): Verdict {
    if (settled) {
      try {
        afterCommit?.();
        this.options.onSettled?.(settled);
      } catch (error) {
        this.#ctx.log.error({ err: error, submissionId: settled.id }, "onSettled hook failed");
      }
    }
    return verdict;
  }

  async #apiKey(credentialId: string): Promise<{ value: string; version: number } | { paused: string }> {
    const row = await this.#ctx.credentials.get(credentialId);
    if (!row) return { paused: "credential deleted" };
    if (row.status !== "active") return { paused: row.pausedReason ?? "paused" };
    const cached = this.#keys.get(credentialId);
    if (cached && cached.version === row.version) return cached;
    const key = { value: openUpstreamCredential(this.#ctx, row), version: row.version };
    this.#keys.set(credentialId, key);
    return key;
  }

  /**
   * Pauses a credential refused with its key `version`, and its submissions wait, in the outcome's transaction `tx`.
   * False (nothing changed) when the credential was rotated since that key was sent: a late 401 of the old key says
   * nothing about the new one.
   */
  async #pauseCredential(tx: TransactionContext, credentialId: string, reason: string, now: number, version: number) {
    if (!(await tx.credentials.pause(credentialId, reason, version))) return false;
    await tx.submissions.waitOnCredential(credentialId, reason, now);
    return true;
  }

  /**
   * The outcome of one send, in its transaction. A retry's backoff counts from `answeredAt`, when the failure came,
   * not from this commit, which may have waited for its credential's lock (D-273): the wait is not added to the backoff.
   */
  async #handle(
    tx: TransactionContext,
    row: SubmissionRow,
    response: UpstreamResponse,
    outcome: Outcome,
    sent: {
      pauseUntil: number | undefined;
      idempotencyKey: string | null;
      keyVersion: number;
      answeredAt: number;
      span: Span;
    },
  ): Promise<Handled> {
    const now = Date.now();
    await tx.submissions.recordAttempt(
      row,
      response,
      outcome.kind !== "rate_limited" && outcome.kind !== "credential_rejected",
      sent.idempotencyKey,
    );
    if (response.apiVersion)
      this.#ctx.log.debug({ submissionId: row.id, apiVersion: response.apiVersion }, "upstream version");
    switch (outcome.kind) {
      case "success":
        return this.#finish(
          tx,
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
          sent.span,
        );
      case "rate_limited": {
        // A 429 that still arrives: the credential pauses (see run); no attempt consumed.
        await tx.submissions.settle(row.id, now, { status: "queued", lastError: response.error, upstreamStatus: 429 });
        this.#ctx.log.warn({ submissionId: row.id, credentialId: row.credentialId }, "upstream answered 429");
        return { verdict: { kind: "rate_limited", until: sent.pauseUntil ?? now + outcome.retryAfterMs } };
      }
      case "credential_rejected": {
        const reason = response.error ?? `upstream ${response.status}`;
        if (!(await this.#pauseCredential(tx, row.credentialId, reason, now, sent.keyVersion))) {
          // Rotated while this request was in flight (the owner put the new key in, then revoked the old one): the
          // new key was not refused, so the submission goes again with it; no attempt consumed.
          await tx.submissions.settle(row.id, now, {
            status: "queued",
            lastError: response.error,
            upstreamStatus: response.status,
          });
          return { verdict: { kind: "retry", at: now } };
        }
        this.#ctx.log.warn(
          { credentialId: row.credentialId, reason },
          "upstream credential rejected: paused until rotated",
        );
        return { verdict: { kind: "credential_paused" } };
      }
      case "retryable": {
        const attempts = row.attempts + 1;
        const at = nextSendAt(this.#retry, attempts, row.firstSentAt ?? sent.answeredAt, sent.answeredAt, this.#random);
        if (at === null) {
          return this.#finish(
            tx,
            row,
            { status: "failed", attempts, upstreamStatus: response.status, lastError: response.error },
            now,
            sent.span,
          );
        }
        await tx.submissions.settle(row.id, now, {
          status: "queued",
          attempts,
          nextAttemptAt: Math.round(at),
          upstreamStatus: response.status,
          lastError: response.error,
        });
        return { verdict: { kind: "retry", at } };
      }
      case "permanent":
        return this.#finish(
          tx,
          row,
          { status: "failed", attempts: row.attempts + 1, upstreamStatus: response.status, lastError: response.error },
          now,
          sent.span,
        );
    }
  }

  /**
   * Runs inside the outcome's transaction: the final state, the appointments it releases, what it is owed. Its span is
   * a child of the send that settled it (`sent`), or of the lead's request when it failed unsent; the webhook events
   * it writes carry that span's trace to their deliveries (D-351).
   */
  async #finish(
    tx: TransactionContext,
    row: SubmissionRow,
    change: SubmissionChange,
    now: number,
    sent: Span | undefined,
  ): Promise<Handled> {
    const tracing = this.#ctx.tracing;
    const span = sent
      ? childSpan(tracing, "settle submission", sent)
      : tracing.start("settle submission", { parent: row.traceParent });
    span.setAttribute("gateway.submission.id", row.id);
    try {
      const recorder = this.options.settlement;
      const { settled, released } = await tx.submissions.settleReleasing(row.id, now, {
        ...change,
        nextAttemptAt: null,
        waitingReason: null,
        ...(recorder ? { settlementRecordedAt: new Date(now).toISOString() } : {}),
      });
      if (settled) span.setAttribute("gateway.submission.status", settled.status);
      const afterCommit =
        settled && recorder ? await recorder.record(tx, settled, tracing.traceparent(span)) : undefined;
      span.end();
      return { verdict: { kind: "settled", released: released.map((r) => r.id) }, settled, afterCommit };
    } catch (error) {
      endFailed(span, error);
      throw error;
    }
  }
}

/** What a send's outcome touches (D-273): its submission, its credential and that credential's submissions. */
function outcomeScope(row: SubmissionRow): TransactionScope {
  return { companyId: row.companyId, credentialId: row.credentialId };
}
