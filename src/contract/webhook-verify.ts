import { timingSafeEqual } from "node:crypto";
import type { ReplayStore } from "./replay-store.js";
import type { SecretLookup } from "./secret-ring.js";
import { bodyBytes, type RawBody, signatureDigest, unixSeconds, WEBHOOK_HEADERS } from "./signing.js";
import type { BodyReader } from "./webhook-body.js";
import { type HeaderSource, parseSignatures, readHeader } from "./webhook-headers.js";

export type { HeaderSource } from "./webhook-headers.js";

/** §8: webhook timestamp tolerance. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface WebhookRequest {
  headers: HeaderSource;
  /** The body exactly as received — never a re-serialisation of parsed JSON (§6.3.2). */
  rawBody: RawBody;
}

/** Reasons a delivery is refused; the sender retries, so these answer 4xx. */
export type WebhookRejection =
  | "missing_signature"
  | "malformed_signature"
  | "missing_timestamp"
  | "invalid_timestamp"
  | "missing_version"
  | "unknown_version"
  | "bad_signature"
  | "stale_timestamp"
  | "missing_delivery_id"
  | "missing_event"
  | "malformed_body";

/** Authentic repeats: answer 2xx without processing so the sender stops (§6.6). */
export type WebhookRepeat = "duplicate" | "already_processed";

export interface VerifiedWebhook<T> {
  ok: true;
  event: string;
  /** The event id used for §6.6, when the body carries one. */
  eventId: string | undefined;
  deliveryId: string;
  secretVersion: number;
  timestamp: number;
  body: T;
}

export interface RepeatedWebhook {
  ok: false;
  reason: WebhookRepeat;
  /** Answer 2xx: the delivery is authentic and already handled. */
  acknowledge: true;
  deliveryId: string;
  eventId: string | undefined;
}

export interface RejectedWebhook {
  ok: false;
  reason: WebhookRejection;
  acknowledge: false;
}

export type WebhookVerification<T> = VerifiedWebhook<T> | RepeatedWebhook | RejectedWebhook;

export interface VerifyWebhookOptions<T> {
  secrets: SecretLookup;
  replayStore: ReplayStore;
  /** What the body must be: `readEnvelope` for §6.1 envelopes, `readJson()` for vendor-mapped bodies. */
  read: BodyReader<T>;
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, like `Date.now` (injectable for tests). */
  now?: () => number;
}

const TIMESTAMP = /^[0-9]{1,15}$/;
const VERSION = /^[1-9][0-9]{0,8}$/;
const DELIVERY_ID = /^[\x21-\x7e]{1,200}$/;

const reject = (reason: WebhookRejection): RejectedWebhook => ({ ok: false, reason, acknowledge: false });

/**
 * §6.3.2, in its order: HMAC over the raw body, constant-time compare, timestamp within tolerance, de-duplicate,
 * only then parse. The order is the point: nothing unauthenticated reaches the clock check, the replay store or the
 * JSON parser, so forged traffic cannot fill the store or probe the parser; stale copies never occupy the store.
 * The headers read first are only the inputs the HMAC needs (§6.3.3: no timestamp or unknown version → reject).
 */
export async function verifyWebhook<T>(
  request: WebhookRequest,
  options: VerifyWebhookOptions<T>,
): Promise<WebhookVerification<T>> {
  const nowSeconds = unixSeconds((options.now ?? Date.now)());
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const headers = request.headers;

  const timestampText = readHeader(headers, WEBHOOK_HEADERS.timestamp);
  if (timestampText === undefined || timestampText === "") return reject("missing_timestamp");
  if (!TIMESTAMP.test(timestampText)) return reject("invalid_timestamp");

  const versionText = readHeader(headers, WEBHOOK_HEADERS.secretVersion);
  if (versionText === undefined || versionText === "") return reject("missing_version");
  const secretVersion = VERSION.test(versionText) ? Number(versionText) : undefined;
  const secret = secretVersion === undefined ? undefined : options.secrets.secretFor(secretVersion, nowSeconds);
  if (secretVersion === undefined || secret === undefined) return reject("unknown_version");

  const signatureText = readHeader(headers, WEBHOOK_HEADERS.signature);
  if (signatureText === undefined || signatureText === "") return reject("missing_signature");
  const presented = parseSignatures(signatureText);
  if (presented === undefined) return reject("malformed_signature");

  // 1. HMAC over the raw bytes, with the timestamp text exactly as sent.
  const raw = bodyBytes(request.rawBody);
  const expected = signatureDigest(secret, timestampText, raw);
  // 2. Constant time: every presented v1 value is compared in full; equal lengths are guaranteed by parsing.
  let matched = false;
  for (const candidate of presented) matched = timingSafeEqual(candidate, expected) || matched;
  if (!matched) return reject("bad_signature");

  // 3. Within tolerance of the receiver's clock, in both directions (a future stamp is as suspect as an old one).
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > tolerance) return reject("stale_timestamp");

  // 4. De-duplicate: a delivery id seen before is a replay. Kept until its copies would fail step 3 anyway.
  const deliveryId = readHeader(headers, WEBHOOK_HEADERS.deliveryId);
  if (deliveryId === undefined || !DELIVERY_ID.test(deliveryId)) return reject("missing_delivery_id");
  if (!(await options.replayStore.rememberDelivery(deliveryId, timestamp + tolerance + 1))) {
    return { ok: false, reason: "duplicate", acknowledge: true, deliveryId, eventId: undefined };
  }

  // 5. Only now parse.
  const json = parseJson(raw);
  if (json === undefined) return reject("malformed_body");
  const read = options.read(json.value);
  if (read === undefined) return reject("malformed_body");
  const event = read.event ?? readHeader(headers, WEBHOOK_HEADERS.event);
  if (event === undefined || event === "") return reject("missing_event");

  // §6.6: an event already processed (a retry under a new delivery id, or a copy replayed under a forged one — the
  // delivery id is not signed, the event id is) is answered 2xx and not processed again.
  if (read.eventId !== undefined && (await options.replayStore.isEventProcessed(read.eventId))) {
    return { ok: false, reason: "already_processed", acknowledge: true, deliveryId, eventId: read.eventId };
  }
  return {
    ok: true,
    event,
    eventId: read.eventId,
    deliveryId,
    secretVersion,
    timestamp,
    body: read.body,
  };
}

function parseJson(raw: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw)) };
  } catch {
    return undefined;
  }
}
