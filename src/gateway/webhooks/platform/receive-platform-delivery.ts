import { readEnvelope } from "../../../contract/webhook-body.js";
import { type HeaderSource, verifyWebhook, type WebhookRejection } from "../../../contract/webhook-verify.js";
import { notFound } from "../../../http/errors.js";
import type { GatewayContext } from "../../context.js";
import { type Enqueued, notifyEnqueued } from "../enqueue.js";
import { fanOutPlatformEvent } from "../fan-out-platform-event.js";
import { openRing } from "../secrets.js";
import { platformRingId } from "./platform-secrets.js";

export interface ReceiverAnswer {
  status: 200 | 400 | 401;
  body: { received: true; duplicate?: true } | { error: WebhookRejection };
}

/**
 * The gateway's receiver of the platform's deliveries for one company: §6.3.2 verification with the company's
 * secrets, then the event and its fan-out to vendors stored in one transaction, and only then 2xx (§6.4.1). Repeats
 * of a stored event are answered 2xx without processing (§6.6). A company without secrets (or unknown) is a 404 that
 * does not say which (§7).
 */
export async function receivePlatformDelivery({
  ctx,
  companyId,
  headers,
  rawBody,
}: {
  ctx: GatewayContext;
  companyId: string;
  headers: HeaderSource;
  rawBody: Uint8Array;
}): Promise<ReceiverAnswer> {
  const sealed = await ctx.webhooks.platformEvents.sealedSecrets(companyId);
  if (sealed === undefined) throw notFound();
  const secrets = openRing(ctx, sealed, platformRingId(companyId));
  const verified = await verifyWebhook(
    { headers, rawBody },
    {
      secrets,
      replayStore: ctx.webhooks.replayStore(companyId),
      read: readEnvelope,
      now: () => ctx.now().getTime(),
    },
  );
  if (!verified.ok) {
    if (verified.acknowledge) return { status: 200, body: { received: true, duplicate: true } };
    return { status: rejectionStatus(verified.reason), body: { error: verified.reason } };
  }

  const envelope = verified.body;
  const nowMs = ctx.now().getTime();
  const enqueued = await ctx.transaction(async (tx): Promise<Enqueued[] | undefined> => {
    const stored = await tx.webhooks.platformEvents.insert({
      companyId,
      id: envelope.id,
      event: envelope.event,
      resourceType: envelope.resource.type,
      resourceId: envelope.resource.id,
      resourceVersion: envelope.resource.version,
      occurredAt: envelope.occurredAt,
      body: Buffer.from(rawBody).toString("utf8"),
      deliveryId: verified.deliveryId,
      fannedOut: 0,
      receivedAt: new Date(nowMs).toISOString(),
    });
    // Another delivery of the same event committed first (they raced through verification): it is processed.
    if (!stored) return undefined;
    const fanned = await fanOutPlatformEvent(tx, companyId, envelope, nowMs);
    if (fanned.length > 0) {
      await tx.webhooks.platformEvents.setFannedOut(companyId, envelope.id, fanned.length);
    }
    return fanned;
  });
  if (enqueued === undefined) return { status: 200, body: { received: true, duplicate: true } };
  notifyEnqueued(ctx, enqueued, nowMs);
  ctx.log.info(
    { companyId, eventId: envelope.id, event: envelope.event, deliveries: enqueued.length },
    "platform event received",
  );
  return { status: 200, body: { received: true } };
}

/** Authentication failures are 401; an authentic body that is not an envelope is 400 (docs/decisions.md). */
function rejectionStatus(reason: WebhookRejection): 400 | 401 {
  return reason === "malformed_body" || reason === "missing_event" || reason === "missing_delivery_id" ? 400 : 401;
}
