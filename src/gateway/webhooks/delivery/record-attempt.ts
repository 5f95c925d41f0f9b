import { newId } from "../../../ids.js";
import type { GatewayContext } from "../../context.js";
import type { WebhookDeliveryRow, WebhookStatements } from "../../storage/webhooks/index.js";
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
 * Writes one attempt and its consequences (run inside the dispatcher's group-commit transaction): the attempt row;
 * the delivery delivered, rescheduled (§6.4.2) or dead-lettered; the endpoint's failure record — a success clears it,
 * 410 Gone disables the subscription, sustained failure disables it with a reason the owner sees, Retry-After pauses
 * the endpoint.
 */
export function applyAttempt(
  ctx: GatewayContext,
  statements: WebhookStatements,
  policy: { retry: DeliveryRetryPolicy; disable: DisablePolicy },
  row: WebhookDeliveryRow,
  result: AttemptResult,
  nowMs: number,
): RecordedOutcome {
  const nowIso = new Date(nowMs).toISOString();
  const attempt = row.attempts + 1;
  statements.insertAttempt.run(
    newId("wha", nowMs),
    row.id,
    attempt,
    result.deliveryId,
    result.secretVersion,
    result.startedAt,
    result.status,
    result.error,
    result.excerpt,
    result.latencyMs,
    row.id,
  );
  const setDelivery = (
    status: "pending" | "delivered" | "failed",
    fields: { retryIndex?: number; nextAttemptAt?: number } = {},
  ) =>
    statements.updateDelivery.run(
      status,
      attempt,
      result.status,
      result.error,
      // Without a profile the body is the envelope, already stored: not written twice.
      result.profileVersionId === null ? null : result.body,
      result.profileVersionId,
      fields.retryIndex ?? row.retryIndex,
      fields.nextAttemptAt ?? row.nextAttemptAt,
      status === "delivered" ? nowIso : null,
      status === "failed" ? nowIso : null,
      row.id,
    );

  if (result.status !== null && result.status >= 200 && result.status < 300) {
    setDelivery("delivered");
    statements.endpointSucceeded.run(row.subscriptionId);
    return { kind: "delivered" };
  }
  if (result.status === 410) {
    // The endpoint says it is gone for good: stop sending to it; the owner sees why and may re-enable it.
    setDelivery("failed");
    const reason = `the endpoint answered 410 Gone at ${nowIso}`;
    disable(ctx, row.subscriptionId, reason, nowIso);
    return { kind: "disabled", reason };
  }

  const next = result.permanent ? undefined : nextDeliveryAt(policy.retry, row.retryIndex, nowMs, result.retryAfterMs);
  if (next === undefined) setDelivery("failed");
  else setDelivery("pending", { retryIndex: row.retryIndex + 1, nextAttemptAt: next });
  if (!result.sent) return next === undefined ? { kind: "dead" } : { kind: "retry", at: next };

  const pausedUntil =
    result.retryAfterMs === undefined ? null : nowMs + Math.min(result.retryAfterMs, policy.retry.maxRetryAfterMs);
  const failing = statements.endpointFailed.get(nowMs, pausedUntil, row.subscriptionId) as
    | { consecutiveFailures: number; failingSince: number | null; status: string }
    | undefined;
  if (
    failing &&
    failing.status === "active" &&
    failing.consecutiveFailures >= policy.disable.failures &&
    nowMs - (failing.failingSince ?? nowMs) >= policy.disable.ms
  ) {
    const since = new Date(failing.failingSince ?? nowMs).toISOString();
    const reason = `no successful delivery since ${since} (${failing.consecutiveFailures} failed attempts in a row; last: ${result.error ?? "failed"})`;
    disable(ctx, row.subscriptionId, reason, nowIso);
    return { kind: "disabled", reason };
  }
  return next === undefined ? { kind: "dead" } : { kind: "retry", at: next };
}

function disable(ctx: GatewayContext, subscriptionId: string, reason: string, nowIso: string): void {
  ctx.webhooks.deliveries.disableSubscription(subscriptionId, reason, nowIso);
  ctx.log.warn({ subscriptionId, reason }, "webhook subscription disabled");
}
