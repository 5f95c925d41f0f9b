import { newId } from "../../../ids.js";
import type { TransactionContext } from "../../storage/transaction.js";
import type { WebhookDeliveryRow } from "../../storage/webhooks/index.js";
import type { AttemptResult } from "./attempt.js";
import { type DeliveryRetryPolicy, nextDeliveryAt } from "./delivery-retry.js";

/** Sustained failure: disabled when an endpoint has failed this many times in a row for at least this long. */
export interface DisablePolicy {
  failures: number;
  ms: number;
}

/** Three days without a success, and at least 20 failed attempts in a row (so a short outage never disables). */
export const DEFAULT_DISABLE_POLICY: DisablePolicy = { failures: 20, ms: 3 * 24 * 3_600_000 };

export type RecordedOutcome =
  | { kind: "delivered" }
  | { kind: "retry"; at: number }
  | { kind: "dead" }
  | { kind: "disabled"; reason: string };

/**
 * Writes one attempt and its consequences through `tx`, the dispatcher's group-commit transaction: the attempt row;
 * the delivery delivered, rescheduled (§6.4.2) or dead-lettered; the endpoint's failure record — a success clears it,
 * 410 Gone disables the subscription, sustained failure disables it with a reason the owner sees, Retry-After pauses
 * the endpoint.
 */
export async function applyAttempt(
  tx: TransactionContext,
  policy: { retry: DeliveryRetryPolicy; disable: DisablePolicy },
  row: WebhookDeliveryRow,
  result: AttemptResult,
  nowMs: number,
): Promise<RecordedOutcome> {
  const nowIso = new Date(nowMs).toISOString();
  const attempt = row.attempts + 1;
  const record = (
    status: "pending" | "delivered" | "failed",
    fields: { retryIndex?: number; nextAttemptAt?: number } = {},
  ) =>
    tx.webhooks.recordAttempt(
      {
        id: newId("wha", nowMs),
        deliveryRowId: row.id,
        attempt,
        deliveryId: result.deliveryId,
        secretVersion: result.secretVersion,
        startedAt: result.startedAt,
        status: result.status,
        error: result.error,
        responseExcerpt: result.excerpt,
        latencyMs: result.latencyMs,
      },
      {
        status,
        attempts: attempt,
        lastStatus: result.status,
        lastError: result.error,
        // Without a profile the body is the envelope, already stored: not written twice.
        body: result.profileVersionId === null ? null : result.body,
        profileVersionId: result.profileVersionId,
        retryIndex: fields.retryIndex ?? row.retryIndex,
        nextAttemptAt: fields.nextAttemptAt ?? row.nextAttemptAt,
        deliveredAt: status === "delivered" ? nowIso : null,
        failedAt: status === "failed" ? nowIso : null,
      },
    );

  if (result.status !== null && result.status >= 200 && result.status < 300) {
    await record("delivered");
    await tx.webhooks.endpointSucceeded(row.subscriptionId);
    return { kind: "delivered" };
  }
  if (result.status === 410) {
    // The endpoint says it is gone for good: stop sending to it; the owner sees why and may re-enable it.
    await record("failed");
    const reason = `the endpoint answered 410 Gone at ${nowIso}`;
    await disable(tx, row.subscriptionId, reason, nowIso);
    return { kind: "disabled", reason };
  }

  const next = result.permanent ? undefined : nextDeliveryAt(policy.retry, row.retryIndex, nowMs, result.retryAfterMs);
  if (next === undefined) await record("failed");
  else await record("pending", { retryIndex: row.retryIndex + 1, nextAttemptAt: next });
  if (!result.sent) return next === undefined ? { kind: "dead" } : { kind: "retry", at: next };

  const pausedUntil =
    result.retryAfterMs === undefined ? null : nowMs + Math.min(result.retryAfterMs, policy.retry.maxRetryAfterMs);
  const failing = await tx.webhooks.endpointFailed(row.subscriptionId, nowMs, pausedUntil);
  if (
    failing &&
    failing.status === "active" &&
    failing.consecutiveFailures >= policy.disable.failures &&
    nowMs - (failing.failingSince ?? nowMs) >= policy.disable.ms
  ) {
    const since = new Date(failing.failingSince ?? nowMs).toISOString();
    const reason = `no successful delivery since ${since} (${failing.consecutiveFailures} failed attempts in a row; last: ${result.error ?? "failed"})`;
    await disable(tx, row.subscriptionId, reason, nowIso);
    return { kind: "disabled", reason };
  }
  return next === undefined ? { kind: "dead" } : { kind: "retry", at: next };
}

async function disable(tx: TransactionContext, subscriptionId: string, reason: string, nowIso: string) {
  await tx.webhooks.deliveries.disableSubscription(subscriptionId, reason, nowIso);
  tx.log.warn({ subscriptionId, reason }, "webhook subscription disabled");
}
