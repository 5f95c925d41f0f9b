/**
 * Webhook receiver helper for vendors (spec §6.3, §6.6): framework-agnostic, no database, no configuration.
 * Usage in docs/webhooks.md.
 */
import { type SecretEntry, type SecretLookup, SecretRing } from "../contract/secret-ring.js";
import { type BodyReader, readEnvelope } from "../contract/webhook-body.js";
import type { WebhookEnvelope } from "../contract/webhook-envelope.js";
import {
  type VerifiedWebhook,
  verifyWebhook,
  type WebhookRejection,
  type WebhookRequest,
  type WebhookVerification,
} from "../contract/webhook-verify.js";
import { MemoryReplayCache, type ReplayCache } from "./memory-replay-cache.js";

export type { SecretEntry, SecretLookup } from "../contract/secret-ring.js";
export { readEnvelope, readJson } from "../contract/webhook-body.js";
export type { WebhookEnvelope } from "../contract/webhook-envelope.js";
export type {
  HeaderSource,
  RejectedWebhook,
  RepeatedWebhook,
  VerifiedWebhook,
  WebhookRejection,
  WebhookRepeat,
  WebhookRequest,
  WebhookVerification,
} from "../contract/webhook-verify.js";
export { MemoryReplayCache, type MemoryReplayCacheOptions, type ReplayCache } from "./memory-replay-cache.js";

export interface WebhookVerifierOptions {
  /**
   * Secrets by version (§6.3.3): `{1: "…", 2: "…"}`, entries with an optional `notAfter` (Unix seconds, the end of
   * a rotation overlap, §6.5.3), or any lookup (a `SecretRing`). Load a pending secret before it is activated.
   */
  secrets: Readonly<Record<number, string>> | readonly SecretEntry[] | SecretLookup;
  /** §8: 300 s unless told. */
  toleranceSeconds?: number;
  /** §6.6 store; an in-memory one (lost on restart) unless given. */
  replayCache?: ReplayCache;
  /** Milliseconds since the epoch (injectable for tests). */
  now?: () => number;
}

/** `handle`'s answer: the status and JSON body to send back. */
export interface WebhookResponse {
  status: 200 | 400 | 401 | 409;
  body: { received: true; duplicate?: true } | { error: string };
}

export interface WebhookVerifier<T> {
  /** §6.3.2 checks, then §6.6: `ok` means a new event to process; repeats carry `acknowledge: true` (answer 2xx). */
  verify(request: WebhookRequest): Promise<WebhookVerification<T>>;
  /** §6.6: call once the event is durably processed, so later deliveries of it are acknowledged, not re-run. */
  markProcessed(eventId: string): Promise<void>;
  /**
   * verify → process → markProcessed, and the answer to send. 200 only after `process` resolved (§6.4.1); if it
   * throws, the error is rethrown (answer 5xx) and the sender's retry processes the event again. A delivery of an
   * event still being processed by this verifier answers 409, so the sender retries later instead of losing it.
   */
  handle(request: WebhookRequest, process: (delivery: VerifiedWebhook<T>) => unknown): Promise<WebhookResponse>;
}

/** Expects §6.1 envelopes. */
export function createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier<WebhookEnvelope>;
/** Reads bodies with `read`, e.g. `readJson(eventIdOf)` for a body the gateway maps into your native shape. */
export function createWebhookVerifier<T>(options: WebhookVerifierOptions & { read: BodyReader<T> }): WebhookVerifier<T>;
export function createWebhookVerifier<T>(
  options: WebhookVerifierOptions & { read?: BodyReader<T> },
): WebhookVerifier<T> | WebhookVerifier<WebhookEnvelope> {
  return options.read ? verifierFor(options, options.read) : verifierFor(options, readEnvelope);
}

function verifierFor<T>(options: WebhookVerifierOptions, read: BodyReader<T>): WebhookVerifier<T> {
  const secrets = toLookup(options.secrets);
  const replayCache = options.replayCache ?? new MemoryReplayCache(options.now ? { now: options.now } : {});
  const inFlight = new Set<string>();
  const verify = (request: WebhookRequest) =>
    verifyWebhook(request, {
      secrets,
      replayStore: replayCache,
      read,
      toleranceSeconds: options.toleranceSeconds,
      now: options.now,
    });
  const markProcessed = async (eventId: string) => {
    await replayCache.markEventProcessed(eventId);
  };

  return {
    verify,
    markProcessed,
    async handle(request, process) {
      const result = await verify(request);
      if (!result.ok) {
        if (result.acknowledge) return { status: 200, body: { received: true, duplicate: true } };
        return { status: rejectionStatus(result.reason), body: { error: result.reason } };
      }
      const eventId = result.eventId;
      if (eventId !== undefined && inFlight.has(eventId)) {
        return { status: 409, body: { error: "event_in_progress" } };
      }
      if (eventId !== undefined) inFlight.add(eventId);
      try {
        await process(result);
        if (eventId !== undefined) await markProcessed(eventId);
      } finally {
        if (eventId !== undefined) inFlight.delete(eventId);
      }
      return { status: 200, body: { received: true } };
    },
  };
}

/** A signed body that is not what was expected is a 400; everything that fails authentication is a 401. */
function rejectionStatus(reason: WebhookRejection): 400 | 401 {
  return reason === "malformed_body" || reason === "missing_event" || reason === "missing_delivery_id" ? 400 : 401;
}

function toLookup(secrets: WebhookVerifierOptions["secrets"]): SecretLookup {
  if (isLookup(secrets)) return secrets;
  if (Array.isArray(secrets)) return SecretRing.of(secrets);
  return SecretRing.of(Object.entries(secrets).map(([version, secret]) => ({ version: Number(version), secret })));
}

function isLookup(secrets: WebhookVerifierOptions["secrets"]): secrets is SecretLookup {
  return "secretFor" in secrets && typeof secrets.secretFor === "function";
}
