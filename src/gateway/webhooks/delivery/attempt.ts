import { type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { newDeliveryId, signWebhook, unixSeconds } from "../../../contract/signing.js";
import { type GuardedFetch, OutboundError } from "../../../net/index.js";
import { parseRetryAfter } from "../../../net/retry-after.js";
import type { GatewayContext } from "../../context.js";
import { isStoreOutage, type OutageRetry } from "../../outage/index.js";
import type { DeliveryToSend, WebhookSubscriptionRow } from "../../storage/webhooks/index.js";
import { endFailed } from "../../tracing/index.js";
import { openRing } from "../secrets.js";

export interface AttemptResult {
  deliveryId: string;
  secretVersion: number | null;
  startedAt: string;
  /** The body sent (made on the first attempt); null when none could be made. */
  body: string | null;
  profileVersionId: string | null;
  status: number | null;
  error: string | null;
  excerpt: string | null;
  latencyMs: number;
  retryAfterMs: number | undefined;
  /** Whether a request went out: only then does a failure count against the endpoint. */
  sent: boolean;
  /** A failure no retry can fix (the outbound profile cannot map the event): straight to the dead letter. */
  permanent: boolean;
}

const EXCERPT_BYTES = 1024;

/**
 * One attempt: the body (the envelope, or the outbound profile's mapping of it, made once and then re-sent as it is,
 * §6.3.4), signed like the platform signs (§6.2–§6.3) with a new delivery id, sent through the SSRF guard with the
 * §6.4.1 10 s limit. The body's reads wait out an outage of the database (`outage`): an outage is not the endpoint's
 * failure nor the profile's, and is never recorded as an attempt (D-330). Throws only OutageRetryClosedError (the
 * dispatcher closed while it waited: the delivery stays pending).
 */
export async function attemptDelivery(
  ctx: GatewayContext,
  fetcher: GuardedFetch,
  subscription: WebhookSubscriptionRow,
  row: DeliveryToSend,
  outage: OutageRetry,
): Promise<AttemptResult> {
  // A span per attempt, in the trace of what produced the event (a lead's settlement, D-351). The endpoint is named
  // by its host only: a vendor's URL may carry a token in its path or query.
  const span = ctx.tracing.start(`webhook ${row.event}`, {
    parent: row.traceParent,
    kind: SpanKind.CLIENT,
    attributes: {
      "http.request.method": "POST",
      "server.address": hostOf(subscription.url),
      "gateway.delivery.id": row.id,
      "gateway.subscription.id": subscription.id,
      "gateway.webhook.event": row.event,
      "gateway.attempt": row.attempts + 1,
    },
  });
  try {
    const result = await send(ctx, fetcher, subscription, row, outage);
    endDeliverySpan(span, result);
    return result;
  } catch (error) {
    endFailed(span, error);
    throw error;
  }
}

function endDeliverySpan(span: Span, result: AttemptResult): void {
  if (result.status !== null) span.setAttribute("http.response.status_code", result.status);
  if (result.error !== null) {
    span.setAttribute("error.type", result.status !== null ? String(result.status) : result.sent ? "network" : "body");
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : "";
}

async function send(
  ctx: GatewayContext,
  fetcher: GuardedFetch,
  subscription: WebhookSubscriptionRow,
  row: DeliveryToSend,
  outage: OutageRetry,
): Promise<AttemptResult> {
  const made = await outage.run(() => bodyFor(ctx, subscription, row));
  const startedMs = Date.now();
  const deliveryId = newDeliveryId();
  const base = { deliveryId, startedAt: new Date(startedMs).toISOString(), retryAfterMs: undefined, excerpt: null };
  if (!made.ok) {
    return {
      ...base,
      secretVersion: null,
      body: null,
      profileVersionId: null,
      status: null,
      error: made.error,
      latencyMs: Date.now() - startedMs,
      sent: false,
      permanent: made.permanent,
    };
  }
  const { version, secret } = openRing(ctx, subscription.sealedSecrets, subscription.id).signingSecret();
  const headers = signWebhook({
    secret,
    secretVersion: version,
    event: row.event,
    deliveryId,
    timestamp: unixSeconds(Date.now()),
    rawBody: made.body,
  });
  const sent = {
    ...base,
    secretVersion: version,
    body: made.body,
    profileVersionId: made.profileVersionId,
    sent: true,
  };
  try {
    const response = await fetcher.fetch(subscription.url, {
      method: "POST",
      headers: { ...headers, "user-agent": "partner-gateway-webhooks/1" },
      body: made.body,
    });
    const now = Date.now();
    return {
      ...sent,
      status: response.status,
      error: response.ok ? null : `HTTP ${response.status}`,
      excerpt: response.ok ? null : excerptOf(response.body),
      latencyMs: now - startedMs,
      retryAfterMs: response.ok ? undefined : parseRetryAfter(response.headers.get("retry-after"), now),
      permanent: false,
    };
  } catch (error) {
    const message =
      error instanceof OutboundError
        ? `${error.code}: ${error.message}`
        : error instanceof Error
          ? error.message
          : "failed";
    return { ...sent, status: null, error: message, latencyMs: Date.now() - startedMs, permanent: false };
  }
}

type MadeBody =
  | { ok: true; body: string; profileVersionId: string | null }
  | { ok: false; error: string; permanent: boolean };

async function bodyFor(
  ctx: GatewayContext,
  subscription: WebhookSubscriptionRow,
  row: DeliveryToSend,
): Promise<MadeBody> {
  if (row.body !== null) return { ok: true, body: row.body, profileVersionId: row.profileVersionId };
  const versionId = subscription.outboundProfileVersionId;
  if (versionId === null) return { ok: true, body: row.envelope, profileVersionId: null };
  try {
    const version = await ctx.profiles.expressionOf(subscription.companyId, versionId);
    // Not found is not a mapping the owner can fix by the profile: worth another try, as a failure to evaluate is.
    if (!version) throw new Error("profile version not found");
    const { expression } = version;
    const outcome = await ctx.engine.map({
      versionId,
      kind: "outbound",
      expression,
      payload: JSON.parse(row.envelope) as unknown,
    });
    // An outbound profile's output is any object, never read as records (profiles/outcome.ts).
    if (outcome.ok && "body" in outcome)
      return { ok: true, body: JSON.stringify(outcome.body), profileVersionId: versionId };
    if (outcome.ok) return { ok: false, error: `outbound profile ${versionId}: produced records`, permanent: true };
    // The profile cannot map this event: retrying changes nothing until the owner fixes it (then redelivers). A
    // guardrail (time, memory, a busy engine) may pass on another try.
    const permanent = outcome.kind === "mapping" || outcome.kind === "validation";
    return { ok: false, error: `outbound profile ${versionId}: ${outcome.message}`, permanent };
  } catch (error) {
    // The database is away: waited out by the caller, never an attempt.
    if (isStoreOutage(error)) throw error;
    // The engine is overloaded or restarting: not the endpoint's fault, and worth another try.
    return {
      ok: false,
      error: `outbound profile: ${error instanceof Error ? error.message : "failed"}`,
      permanent: false,
    };
  }
}

function excerptOf(body: Uint8Array): string | null {
  if (body.byteLength === 0) return null;
  return Buffer.from(body.subarray(0, EXCERPT_BYTES)).toString("utf8");
}
