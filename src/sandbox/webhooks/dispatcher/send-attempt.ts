import { eq } from "drizzle-orm";
import { newDeliveryId, signWebhook, unixSeconds } from "../../../contract/signing.js";
import { type GuardedFetch, OutboundError } from "../../../net/index.js";
import type { SandboxCtx } from "../../context.js";
import {
  type WebhookDeliveryRow,
  webhookAttempts,
  webhookDeliveries,
  webhookSubscriptions,
} from "../../db/schema/index.js";
import type { WebhookConfig } from "../config.js";
import { ringOf } from "../secrets.js";
import { maxAttempts, retryDelayMs } from "./backoff.js";

export interface AttemptOutcome {
  deliveryId: string;
  status: WebhookDeliveryRow["status"];
  responseStatus: number | null;
}

/**
 * One attempt of one delivery (§6.2–§6.4): signed now, with the subscription's current secret version and a new
 * `x-svc-delivery-id`, the stored body sent as it is; 2xx settles it, anything else schedules the next attempt with
 * backoff or, after the last, the dead letter. `isStopped` is asked after the wait: a stopped sandbox's database may
 * be closed.
 */
export async function sendAttempt(
  deps: { ctx: SandboxCtx; config: WebhookConfig; fetcher: GuardedFetch; isStopped: () => boolean },
  delivery: WebhookDeliveryRow,
): Promise<AttemptOutcome | undefined> {
  const { ctx, config } = deps;
  const subscription = ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.id, delivery.subscriptionId))
    .get();
  if (!subscription) return undefined;
  const { version, secret } = ringOf(subscription).signingSecret();
  const attemptId = newDeliveryId();
  const timestamp = unixSeconds(ctx.clock.now());
  const headers = signWebhook({
    secret,
    secretVersion: version,
    event: delivery.event,
    deliveryId: attemptId,
    timestamp,
    rawBody: delivery.body,
  });

  const started = performance.now();
  let responseStatus: number | null = null;
  let error: string | null = null;
  try {
    const response = await deps.fetcher.fetch(subscription.url, {
      method: "POST",
      headers: Object.fromEntries(Object.entries(headers)),
      body: delivery.body,
    });
    responseStatus = response.status;
    if (!response.ok) error = `answered ${response.status}`;
  } catch (caught) {
    error = caught instanceof OutboundError ? `${caught.code}: ${caught.message}` : String(caught);
  }
  if (deps.isStopped()) return undefined;
  const durationMs = Math.round(performance.now() - started);

  const attempt = delivery.attemptCount + 1;
  const now = ctx.clock.now();
  const delay = error === null ? undefined : retryDelayMs(config, attempt);
  const status: WebhookDeliveryRow["status"] =
    error === null ? "succeeded" : attempt >= maxAttempts(config) || delay === undefined ? "dead_lettered" : "pending";
  return ctx.db.transaction((tx) => {
    // A reset may have emptied the tables while the request was out.
    const still = tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivery.id))
      .get();
    if (!still) return undefined;
    tx.insert(webhookAttempts)
      .values({
        id: attemptId,
        deliveryId: delivery.id,
        attempt,
        secretVersion: version,
        timestamp,
        responseStatus,
        error,
        durationMs,
        attemptedAt: new Date(now).toISOString(),
      })
      .run();
    tx.update(webhookDeliveries)
      .set({
        status,
        attemptCount: attempt,
        nextAttemptAt: status === "pending" ? now + (delay ?? 0) : null,
        updatedAt: new Date(now).toISOString(),
      })
      .where(eq(webhookDeliveries.id, delivery.id))
      .run();
    return { deliveryId: delivery.id, status, responseStatus };
  });
}
