import { createHmac } from "node:crypto";
import { newId } from "../ids.js";

/** §6.2: the delivery headers, lower-case as Node and the Fetch API present them. */
export const WEBHOOK_HEADERS = {
  event: "x-svc-event",
  deliveryId: "x-svc-delivery-id",
  timestamp: "x-svc-timestamp",
  secretVersion: "x-svc-secret-version",
  signature: "x-svc-signature",
} as const;

/** §6.3.1: the signature scheme, reported by `GET /partner-api/webhook-events` (§4.3). */
export const SIGNATURE_SCHEME = "v1";

/** The exact bytes received or about to be sent. A string is taken as its UTF-8 encoding. */
export type RawBody = Uint8Array | string;

export interface WebhookHeaders {
  "x-svc-event": string;
  "x-svc-delivery-id": string;
  "x-svc-timestamp": string;
  "x-svc-secret-version": string;
  "x-svc-signature": string;
  "content-type": "application/json";
}

export interface SignWebhookInput {
  /** The secret of `secretVersion`; its UTF-8 bytes are the HMAC key (docs/decisions.md, Webhooks). */
  secret: string;
  secretVersion: number;
  event: string;
  /** §6.2: unique per attempt — make one with `newDeliveryId()` for every send, retries included. */
  deliveryId: string;
  /** Unix seconds at signing (§6.2). */
  timestamp: number;
  /** The bytes that will be sent, unchanged (§6.3.4). */
  rawBody: RawBody;
}

const encoder = new TextEncoder();
/** Header values must not be able to smuggle a line break or another header. */
const HEADER_SAFE = /^[\x21-\x7e]{1,200}$/;

export function bodyBytes(rawBody: RawBody): Uint8Array {
  return typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
}

/**
 * §6.3.1: HMAC-SHA256 over the timestamp text, a period, then the raw body bytes. The bytes are fed as they are —
 * never decoded and re-encoded, never re-serialised — so the digest covers exactly what travels (§6.3.4).
 */
export function signatureDigest(secret: string, timestamp: string, rawBody: RawBody): Buffer {
  return createHmac("sha256", secret).update(`${timestamp}.`, "utf8").update(bodyBytes(rawBody)).digest();
}

/** §6.3.1: `v1=` and the lowercase hex digest. */
export function computeSignature(secret: string, timestamp: number, rawBody: RawBody): string {
  assertTimestamp(timestamp);
  return `${SIGNATURE_SCHEME}=${signatureDigest(secret, String(timestamp), rawBody).toString("hex")}`;
}

/** §6.2–§6.3: the headers of one delivery attempt. Throws on input no receiver could verify. */
export function signWebhook(input: SignWebhookInput): WebhookHeaders {
  assertTimestamp(input.timestamp);
  if (!Number.isSafeInteger(input.secretVersion) || input.secretVersion < 1) {
    throw new RangeError("secretVersion must be a positive integer");
  }
  if (!HEADER_SAFE.test(input.event)) throw new RangeError("event must be 1-200 visible ASCII characters");
  if (!HEADER_SAFE.test(input.deliveryId)) throw new RangeError("deliveryId must be 1-200 visible ASCII characters");
  if (input.secret.length === 0) throw new RangeError("secret must not be empty");
  return {
    "x-svc-event": input.event,
    "x-svc-delivery-id": input.deliveryId,
    "x-svc-timestamp": String(input.timestamp),
    "x-svc-secret-version": String(input.secretVersion),
    "x-svc-signature": computeSignature(input.secret, input.timestamp, input.rawBody),
    "content-type": "application/json",
  };
}

/** §6.2: a fresh id for every attempt, so a receiver can tell a replay from a retry (time-ordered, src/ids.ts). */
export function newDeliveryId(): string {
  return newId("dlv");
}

/** Unix seconds, the unit of `x-svc-timestamp`. */
export function unixSeconds(nowMs: number = Date.now()): number {
  return Math.floor(nowMs / 1000);
}

function assertTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError("timestamp must be a non-negative integer of Unix seconds");
  }
}
