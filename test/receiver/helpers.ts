import { newDeliveryId, signWebhook } from "../../src/contract/signing.js";
import { buildEnvelope, encodeEnvelope } from "../../src/contract/webhook-envelope.js";

export const NOW = 1_767_225_600;

export function envelopeBytes(id = "evt_0001"): Uint8Array {
  return encodeEnvelope(
    buildEnvelope({
      id,
      event: "appointment.booked",
      occurredAt: "2026-01-01T00:00:00.000Z",
      resource: { type: "appointment", id: "apt_42", version: 1 },
      data: { startsAt: "2026-01-02T09:00:00.000Z" },
    }),
  );
}

/** A delivery attempt as a sender makes it: a fresh delivery id unless one is given. */
export function delivery(
  rawBody: Uint8Array | string,
  options: { secret?: string; version?: number; timestamp?: number; deliveryId?: string } = {},
): { headers: Record<string, string>; rawBody: Uint8Array | string } {
  const headers = signWebhook({
    secret: options.secret ?? "whsec_one",
    secretVersion: options.version ?? 1,
    event: "appointment.booked",
    deliveryId: options.deliveryId ?? newDeliveryId(),
    timestamp: options.timestamp ?? NOW,
    rawBody,
  });
  return { headers: { ...headers }, rawBody };
}
