import { newDeliveryId, signWebhook, unixSeconds } from "../../../contract/signing.js";
import { buildEnvelope } from "../../../contract/webhook-envelope.js";
import { alertView } from "../alert-view.js";
import type { Notice } from "../notice.js";

/**
 * The operational webhook's request (D-345): the §6.1 envelope of `alert.opened` or `alert.resolved` — its
 * resource the alert, its data the alert as the owner API shows it, with the console URL — signed as every webhook
 * of the gateway is (§6.2–§6.3, contract/signing.ts), so the company's endpoint verifies it with the receiver it
 * already uses for the platform's events. Each attempt has its own delivery id; the event id stays.
 */
export function operationalRequest(notice: Notice, secret: string, nowMs: number) {
  const { alert } = notice;
  const envelope = buildEnvelope({
    id: notice.eventId,
    event: notice.event,
    occurredAt: notice.event === "alert.resolved" ? (alert.resolvedAt ?? alert.updatedAt) : alert.lastSeenAt,
    // The alert's life as versions: 1 open, 2 resolved.
    resource: { type: "alert", id: alert.id, version: notice.event === "alert.resolved" ? 2 : 1 },
    data: { ...alertView(alert), url: notice.url, reminder: notice.reminder },
  });
  const body = JSON.stringify(envelope);
  const headers = signWebhook({
    secret,
    secretVersion: 1,
    event: notice.event,
    deliveryId: newDeliveryId(),
    timestamp: unixSeconds(nowMs),
    rawBody: body,
  });
  return { body, headers: { ...headers, "user-agent": "partner-gateway-alerts/1" } };
}
