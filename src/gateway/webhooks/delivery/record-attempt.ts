import { and, eq, gt, sql } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, webhookSubscriptions } from "../../../db/schema/index.js";
import type { WebhookDeliveryRow } from "../../../db/schema/webhook-deliveries.js";
import { newId } from "../../../ids.js";
import type { GatewayContext } from "../../context.js";
import type { AttemptResult } from "./attempt.js";
import { nextAttemptAt, type RetryPolicy } from "./retry-policy.js";

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
 * Writes one attempt and its consequences in one transaction: the attempt row; the delivery delivered, rescheduled
 * (§6.4.2) or dead-lettered; the endpoint's failure record (a success clears it; 410 Gone disables the subscription;
 * sustained failure disables it with a reason the owner sees; Retry-After pauses the endpoint).
 */
export function recordAttempt(
  ctx: GatewayContext,
  policy: { retry: RetryPolicy; disable: DisablePolicy },
  row: WebhookDeliveryRow,
  result: AttemptResult,
  nowMs: number,
): RecordedOutcome {
  return ctx.sqlite.transaction((): RecordedOutcome => {
    const nowIso = new Date(nowMs).toISOString();
    const attempt = row.attempts + 1;
    ctx.db
      .insert(webhookAttempts)
      .values({
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
      })
      .run();
    const common = {
      attempts: attempt,
      lastStatus: result.status,
      lastError: result.error,
      ...(result.body !== null ? { body: result.body, profileVersionId: result.profileVersionId } : {}),
    };
    const setDelivery = (fields: Partial<WebhookDeliveryRow>) =>
      ctx.db
        .update(webhookDeliveries)
        .set({ ...common, ...fields })
        .where(eq(webhookDeliveries.id, row.id))
        .run();
    const subscriptionWhere = eq(webhookSubscriptions.id, row.subscriptionId);

    if (result.status !== null && result.status >= 200 && result.status < 300) {
      setDelivery({ status: "delivered", deliveredAt: nowIso });
      ctx.db
        .update(webhookSubscriptions)
        .set({ consecutiveFailures: 0, failingSince: null, pausedUntil: null })
        .where(and(subscriptionWhere, gt(webhookSubscriptions.consecutiveFailures, 0)))
        .run();
      return { kind: "delivered" };
    }
    if (result.status === 410) {
      // The endpoint says it is gone for good: stop sending to it; the owner sees why and may re-enable it.
      setDelivery({ status: "failed", failedAt: nowIso });
      const reason = `the endpoint answered 410 Gone at ${nowIso}`;
      disable(ctx, row.subscriptionId, reason, nowIso);
      return { kind: "disabled", reason };
    }

    const next = result.permanent ? undefined : nextAttemptAt(policy.retry, row.retryIndex, nowMs, result.retryAfterMs);
    if (next === undefined) setDelivery({ status: "failed", failedAt: nowIso });
    else setDelivery({ status: "pending", retryIndex: row.retryIndex + 1, nextAttemptAt: next });
    if (!result.sent) return next === undefined ? { kind: "dead" } : { kind: "retry", at: next };

    const pausedUntil =
      result.retryAfterMs === undefined
        ? undefined
        : nowMs + Math.min(result.retryAfterMs, policy.retry.maxRetryAfterMs);
    const failing = ctx.db
      .update(webhookSubscriptions)
      .set({
        consecutiveFailures: sql`${webhookSubscriptions.consecutiveFailures} + 1`,
        failingSince: sql`coalesce(${webhookSubscriptions.failingSince}, ${nowMs})`,
        ...(pausedUntil === undefined ? {} : { pausedUntil }),
      })
      .where(subscriptionWhere)
      .returning({
        consecutiveFailures: webhookSubscriptions.consecutiveFailures,
        failingSince: webhookSubscriptions.failingSince,
        status: webhookSubscriptions.status,
      })
      .get();
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
  })();
}

function disable(ctx: GatewayContext, subscriptionId: string, reason: string, nowIso: string): void {
  ctx.db
    .update(webhookSubscriptions)
    .set({ status: "disabled", disabledReason: reason, disabledAt: nowIso, updatedAt: nowIso })
    .where(and(eq(webhookSubscriptions.id, subscriptionId), eq(webhookSubscriptions.status, "active")))
    .run();
  ctx.log.warn({ subscriptionId, reason }, "webhook subscription disabled");
}
