import { type WebhookEnvelope, webhookEnvelopeSchema } from "./webhook-envelope.js";

/**
 * The last step of §6.3.2: what a verified, de-duplicated body is. Returns undefined when the body is not what the
 * receiver expects (`malformed_body`). `eventId` feeds the §6.6 once-per-event check; `event` names the event when
 * the body carries it (the `x-svc-event` header is used otherwise).
 */
export type BodyReader<T> = (json: unknown) => { body: T; eventId?: string; event?: string } | undefined;

/** A §6.1 envelope, as the platform sends and as the gateway sends to vendors without an outbound profile. */
export const readEnvelope: BodyReader<WebhookEnvelope> = (json) => {
  const parsed = webhookEnvelopeSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return { body: parsed.data, eventId: parsed.data.id, event: parsed.data.event };
};

/**
 * Any JSON body: a vendor whose outbound profile maps the envelope into its native shape. `eventIdOf` finds the
 * event id the profile kept (an envelope's `id` is found without it); with no id, only delivery ids de-duplicate.
 */
export function readJson(eventIdOf?: (body: unknown) => string | undefined): BodyReader<unknown> {
  return (json) => {
    const envelope = webhookEnvelopeSchema.safeParse(json);
    if (envelope.success) return { body: json, eventId: envelope.data.id, event: envelope.data.event };
    const eventId = eventIdOf?.(json);
    return eventId === undefined ? { body: json } : { body: json, eventId };
  };
}
