import { type Span, SpanKind } from "@opentelemetry/api";
import { ApiError } from "../../http/errors.js";
import { type BodySource, readJsonFrom } from "../../http/json-body.js";
import { keyPrefix } from "../../log.js";
import { capturePayload, isCapturing } from "../captures/capture-payload.js";
import type { GatewayContext } from "../context.js";
import { endFailed } from "../tracing/index.js";
import { acceptSubmission, assertScope, type SubmissionKind } from "./accept-submission.js";
import { authenticateVendorKey, type VendorKey } from "./authenticate-vendor-key.js";
import type { IntakeLimiter } from "./intake-limiter.js";
import { waitSeconds } from "./prefer-wait.js";

/** One vendor request on an intake path, whatever serves it (Node's request, or Hono's context). */
export interface IntakeRequest extends BodySource {
  kind: SubmissionKind;
  /** Told the first 14 characters of the caller's key as soon as they are known, for the request's log line (§5.9). */
  onKey(prefix: string): void;
}

export interface IntakeAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * The intake pipeline on the Inbound API's own paths (§4.2), so a vendor's client needs only a new base URL and key:
 * auth → intake limit → scope → 1 MB → JSON → map → validate → commit → 202 (or, waited for, the upstream's own answer).
 * A key in capture mode (D-315) stores the JSON as received after the JSON step, and answers 202 at once.
 * Errors are thrown (ApiError) for the server's error contract.
 */
export function answerIntake(args: {
  ctx: GatewayContext;
  limiter: IntakeLimiter;
  request: IntakeRequest;
}): Promise<IntakeAnswer> {
  return args.ctx.tracing.enabled ? tracedIntake(args) : intake(args, undefined);
}

/**
 * The request as the root of its lead's trace, or a child of the vendor's own `traceparent` (docs/tracing.md): its
 * key's first 14 characters only, never the key, the payload or the vendor's contact.
 */
async function tracedIntake(args: {
  ctx: GatewayContext;
  limiter: IntakeLimiter;
  request: IntakeRequest;
}): Promise<IntakeAnswer> {
  const path = args.request.kind === "lead" ? "/api/inbound/leads" : "/api/inbound/appointments";
  const span = args.ctx.tracing.start(`POST ${path}`, {
    parent: args.request.header("traceparent"),
    kind: SpanKind.SERVER,
    attributes: { "http.request.method": "POST", "http.route": path },
  });
  const onKey = args.request.onKey;
  // A method, not an arrow function (D-382).
  const request: IntakeRequest = {
    ...args.request,
    onKey(prefix) {
      span.setAttribute("gateway.vendor_key.prefix", prefix);
      onKey(prefix);
    },
  };
  try {
    const answer = await intake({ ...args, request }, span);
    span.setAttribute("http.response.status_code", answer.status);
    const submissionId = answer.headers["x-submission-id"];
    if (submissionId) span.setAttribute("gateway.submission.id", submissionId);
    span.end();
    return answer;
  } catch (error) {
    if (error instanceof ApiError) span.setAttribute("http.response.status_code", error.status);
    endFailed(span, error);
    throw error;
  }
}

async function intake(
  {
    ctx,
    limiter,
    request,
  }: {
    ctx: GatewayContext;
    limiter: IntakeLimiter;
    request: IntakeRequest;
  },
  span: Span | undefined,
): Promise<IntakeAnswer> {
  const admitted = admitVendorKey(ctx, limiter, request.header("x-api-key"), request.onKey);
  const key = admitted instanceof Promise ? await admitted : admitted;
  assertScope(key, request.kind);
  const { text, body } = await readJsonFrom(request);
  if (isCapturing(key)) {
    // D-315: stored as received, never mapped or forwarded; answered as an accept, named as a capture.
    const input = { kind: request.kind, connectionId: null, payload: text, bytes: Buffer.byteLength(text) };
    const captureId = await capturePayload(ctx, key, input);
    return {
      status: 202,
      body: { submissionId: captureId, status: "captured" },
      headers: { location: `/api/inbound/submissions/${captureId}`, "x-submission-id": captureId },
    };
  }
  const result = await acceptSubmission({
    ctx,
    key,
    input: { kind: request.kind, raw: text, payload: body, idempotencyHeader: request.header("idempotency-key") },
    span,
  });
  const { submissionId } = result.submission;
  const headers: Record<string, string> = {
    location: `/api/inbound/submissions/${submissionId}`,
    "x-submission-id": submissionId,
  };
  if (result.replay) return { status: 200, body: result.submission, headers };
  const wait = waitSeconds(request.header("prefer"), key.responseMode);
  const settled =
    wait > 0 && ctx.running.forwarding ? await ctx.running.forwarding.waitFor(submissionId, wait * 1000) : undefined;
  if (!settled) return { status: 202, body: { submissionId, status: "queued" }, headers };
  // The upstream's own answer, so a client written for the Inbound API keeps working (§4.2).
  headers["preference-applied"] = `wait=${wait}`;
  if (settled.status === "forwarded") {
    return { status: settled.upstreamStatus ?? 200, body: settled.result ?? {}, headers };
  }
  const status = settled.upstreamStatus && settled.upstreamStatus >= 400 ? settled.upstreamStatus : 502;
  return { status, body: { error: settled.lastError ?? "forwarding failed", submissionId }, headers };
}

/** The caller's vendor key (§5: 401 otherwise), within its intake limit (429 past it). */
export function admitVendorKey(
  ctx: GatewayContext,
  limiter: IntakeLimiter,
  header: string | undefined,
  onKey: (prefix: string) => void,
): VendorKey | Promise<VendorKey> {
  if (header) onKey(keyPrefix(header));
  const key = authenticateVendorKey(ctx, header);
  if (key instanceof Promise) {
    return key.then((found) => {
      limiter.take(found.id);
      return found;
    });
  }
  limiter.take(key.id);
  return key;
}
