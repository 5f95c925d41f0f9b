// Plain zod (not the OpenAPI flavour): the vendor receiver helper imports this file and must stay standalone.
import { z } from "zod";
import { newId } from "../ids.js";
import { API_VERSION, SCHEMA_VERSION } from "./api-version.js";

/** §6.1: `evt_` ids, stable across every retry of the event. */
const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,120}$/;

/**
 * §6.1 envelope. Loose objects: §9.2 adds fields without a version change, and a receiver (or the gateway relaying
 * an event) must carry them rather than fail or drop them.
 */
export const webhookEnvelopeSchema = z.looseObject({
  id: z.string().regex(EVENT_ID, { message: "must be an evt_ id" }),
  event: z.string().min(1).max(200),
  apiVersion: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: "must be a date version" }),
  schemaVersion: z.number().int().min(1),
  occurredAt: z.iso.datetime({ offset: false, message: "must be an ISO-8601 UTC timestamp ending in Z" }),
  resource: z.looseObject({
    type: z.string().min(1),
    id: z.string().min(1),
    version: z.number().int().min(0),
  }),
  data: z.record(z.string(), z.unknown()),
});

export type WebhookEnvelope = z.infer<typeof webhookEnvelopeSchema>;
export type WebhookResource = WebhookEnvelope["resource"];

export interface EnvelopeInput {
  /** The event id — taken, not made, so every retry carries the same one (§6.1). */
  id: string;
  event: string;
  occurredAt: Date | string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
  /** §6.1/§9.4: a subscription that opted into a newer payload schema; defaults to the current one. */
  schemaVersion?: number;
}

/** Made once, when the event happens (time-ordered, src/ids.ts), then kept by every retry. */
export function newEventId(): string {
  return newId("evt");
}

/** Builds and validates a §6.1 envelope with the current `apiVersion`. Throws a ZodError on invalid input. */
export function buildEnvelope(input: EnvelopeInput): WebhookEnvelope {
  return webhookEnvelopeSchema.parse({
    id: input.id,
    event: input.event,
    apiVersion: API_VERSION,
    schemaVersion: input.schemaVersion ?? SCHEMA_VERSION,
    occurredAt: typeof input.occurredAt === "string" ? input.occurredAt : input.occurredAt.toISOString(),
    resource: input.resource,
    data: input.data,
  });
}

/** The bytes to sign and send: serialised once, then stored and re-sent as they are on every retry (§6.3.4). */
export function encodeEnvelope(envelope: WebhookEnvelope): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(envelope));
}
