import { type GuardedFetch, OutboundError } from "../../net/index.js";
import type { GatewayContext } from "../context.js";
import { nextSendAt, type SendRetryPolicy } from "../forwarding/send-retry.js";
import { OutageRetryClosedError } from "../outage/index.js";
import type { FetchChange, SubmissionRow } from "../storage/submissions/index.js";
import { settlementRecorder } from "../webhooks/index.js";
import { type FetchOutcome, networkOutcome, responseOutcome } from "./fetch-outcome.js";
import { vendorRequest } from "./fetch-request.js";
import { storeFetchedRecord } from "./fetched-record.js";
import { fetchSecretNames } from "./presets/index.js";
import type { ResolvedConnection } from "./resolved-connection.js";

/** What one fetch needs beside its row: the guarded egress, the retry schedule, and whether the fetcher is closing. */
export interface FetchAttemptDeps {
  ctx: GatewayContext;
  egress: GuardedFetch;
  retry: SendRetryPolicy;
  random: () => number;
  closing: () => boolean;
  /** Runs a step on the database through the fetcher's outage retry: an outcome waits for it, never lost (D-338). */
  store: <T>(step: () => Promise<T>) => Promise<T>;
}

/** How an attempt ended, for the fetcher's schedule: when the row is due again, and a 429's pause of the connection. */
export interface FetchAttemptResult {
  /** The row's next attempt (ms, the context's clock), when it was put back. */
  nextAttemptAt?: number;
  /** The vendor's Retry-After (ms from now): the connection's other fetches wait too. */
  pauseMs?: number;
}

/**
 * One fetch of a claimed `fetching` row and its outcome, committed under the claim's lease before anything else may
 * fetch the row again (docs/connections.md, "Fetch after notify"; D-322): the record stored (fetched-record.ts), the
 * row put back for a later attempt with the exponential backoff and full jitter of forwarding's schedule (§7; a 429's
 * Retry-After honoured), or the dead letter — `failed` with the reason, recorded like any settled submission's. The
 * connection's secrets are sent to the vendor only, through the guarded egress, and never written anywhere.
 * `answered` is called once, when the vendor's answer (or the failure) came: the rate window's slot closes then.
 */
export async function attemptFetch(
  deps: FetchAttemptDeps,
  row: SubmissionRow,
  leaseUntil: number,
  connection: ResolvedConnection,
  answered: () => void,
): Promise<FetchAttemptResult> {
  const { ctx } = deps;
  const fetch = connection.declarations.fetch;
  if (!fetch) {
    answered();
    return failFetch(deps, row, leaseUntil, "the connection no longer fetches notified records");
  }
  const apiBase = ctx.settings.mode === "sandbox" ? (connection.row.vendorApiBase ?? undefined) : undefined;
  const built = vendorRequest(fetch, row.fetchTarget ?? {}, connection.secrets, apiBase);
  if (!built.ok) {
    answered();
    return failFetch(deps, row, leaseUntil, built.reason);
  }
  const secrets = [...connection.secrets.values()].filter((value) => value.length >= 4);
  const redact = (text: string) => secrets.reduce((out, value) => out.replaceAll(value, "[secret]"), text);
  let outcome: FetchOutcome;
  try {
    const response = await deps.egress.fetch(built.request.url, { method: "GET", headers: built.request.headers });
    answered();
    outcome = responseOutcome(
      response,
      ctx.now().getTime(),
      redact,
      fetchSecretNames(fetch).map((s) => s.name),
    );
  } catch (error) {
    answered();
    if (!(error instanceof OutboundError)) throw error;
    // Closing: the request was abandoned, not answered; the row is due again at the next start, no attempt spent.
    if (deps.closing()) {
      await deps.store(() => ctx.submissions.endFetch(row.id, leaseUntil, ctx.now().getTime(), {}));
      return {};
    }
    outcome = networkOutcome(error);
  }
  if (outcome.kind !== "record") {
    ctx.log.info(
      { submissionId: row.id, url: built.request.shown, outcome: outcome.kind },
      "notified record not fetched",
    );
    return end(deps, row, leaseUntil, outcome);
  }
  try {
    const record = outcome.record;
    await deps.store(() => storeFetchedRecord(ctx, connection, row, leaseUntil, record));
    return {};
  } catch (error) {
    if (error instanceof OutageRetryClosedError) throw error;
    // The profile engine busy, or a record stored meanwhile by another request: the gateway's to retry, soon, without
    // spending one of the vendor's attempts (the next one finds the stored record).
    ctx.log.warn({ submissionId: row.id, err: error }, "fetched record not stored; fetched again shortly");
    const nextAttemptAt = ctx.now().getTime() + 1_000;
    await deps.store(() => ctx.submissions.endFetch(row.id, leaseUntil, ctx.now().getTime(), { nextAttemptAt }));
    return { nextAttemptAt };
  }
}

/**
 * The dead letter for a row whose record cannot be fetched (its connection revoked or gone, a secret or a value of the
 * URL missing): no request was made, so no attempt is counted.
 */
export async function failFetch(
  deps: FetchAttemptDeps,
  row: SubmissionRow,
  leaseUntil: number,
  reason: string,
): Promise<FetchAttemptResult> {
  await deps.store(() => fail(deps.ctx, row, leaseUntil, deps.ctx.now().getTime(), { lastError: reason }));
  return {};
}

/**
 * An attempt that went wrong in the gateway (a bug, not the vendor): put back on the same schedule, so that it ends
 * in the dead letter with the reason rather than being taken again at every lease's end for ever.
 */
export function retryFetch(
  deps: FetchAttemptDeps,
  row: SubmissionRow,
  leaseUntil: number,
  reason: string,
): Promise<FetchAttemptResult> {
  return end(deps, row, leaseUntil, { kind: "retry", reason });
}

/** An attempt that brought no record: put back for a later one, or, past the schedule or not retryable, failed. */
async function end(
  deps: FetchAttemptDeps,
  row: SubmissionRow,
  leaseUntil: number,
  outcome: Exclude<FetchOutcome, { kind: "record" }>,
): Promise<FetchAttemptResult> {
  const { ctx } = deps;
  const now = ctx.now().getTime();
  const attempts = row.attempts + 1;
  if (outcome.kind === "retry") {
    // The schedule counts from the notification; a Retry-After replaces the backoff, within the same horizon.
    const notifiedAt = Date.parse(row.createdAt);
    const backoff = nextSendAt(deps.retry, attempts, notifiedAt, now, deps.random);
    const { retryAfterMs } = outcome;
    const nextAttemptAt = backoff === null || retryAfterMs === undefined ? backoff : now + retryAfterMs;
    if (nextAttemptAt !== null && nextAttemptAt - notifiedAt <= deps.retry.horizonMs) {
      const change = { attempts, nextAttemptAt, lastError: outcome.reason };
      await deps.store(() => ctx.submissions.endFetch(row.id, leaseUntil, now, change));
      return { nextAttemptAt, ...(retryAfterMs === undefined ? {} : { pauseMs: retryAfterMs }) };
    }
  }
  const reason =
    outcome.kind === "retry" ? `no record after ${attempts} attempts; the last: ${outcome.reason}` : outcome.reason;
  await deps.store(() => fail(ctx, row, leaseUntil, now, { attempts, lastError: reason }));
  return {};
}

/**
 * The dead letter: `failed` with the reason, and what a failed submission is owed (its vendor's `submission.failed`
 * webhook) recorded in the same transaction, as forwarding records it (docs/webhooks-gateway.md).
 */
async function fail(
  ctx: GatewayContext,
  row: SubmissionRow,
  leaseUntil: number,
  now: number,
  change: FetchChange,
): Promise<void> {
  const recorder = settlementRecorder(ctx);
  const after = await ctx.transaction(
    async (tx) => {
      const failed = await tx.submissions.endFetch(row.id, leaseUntil, now, {
        ...change,
        status: "failed",
        nextAttemptAt: null,
        settlementRecordedAt: new Date(now).toISOString(),
      });
      return failed ? recorder.record(tx, failed) : undefined;
    },
    "immediate",
    { companyId: row.companyId },
  );
  after?.();
}
