import { type Span, SpanKind } from "@opentelemetry/api";
import { ApiError, notFound } from "../../http/errors.js";
import { MAX_BODY_BYTES } from "../../http/json-body.js";
import type { GatewayContext } from "../context.js";
import type { IntakeLimiter } from "../intake/intake-limiter.js";
import type { ConnectionRow } from "../storage/connections/index.js";
import { endFailed } from "../tracing/index.js";
import { HOOK_BODY_ERRORS, HookBodyError, type JsonValue, parseHookBody } from "./bodies/index.js";
import type { HookAnswer, HookHttpRequest } from "./hook-request.js";
import { digestHookToken, isHookToken } from "./hook-token.js";
import type { ProofFailures } from "./proof-failures.js";
import {
  answerHandshake,
  type HookRequest,
  type ProofRefused,
  proofNeedsParsedBody,
  renderAnswer,
  verifyProof,
} from "./proofs/index.js";
import type { ConnectionResolver, ResolvedConnection } from "./resolved-connection.js";

/** What the hook route keeps for every request: the intake limit per connection, and its counters. */
export interface HookServices {
  limiter: IntakeLimiter;
  resolver: ConnectionResolver;
  proofFailures: ProofFailures;
  /** Stores what the vendor sent, durably, before the vendor is answered (accept-hook.ts). */
  accept(connection: ResolvedConnection, payload: { raw: Uint8Array; body: JsonValue }, span?: Span): Promise<void>;
}

/**
 * A vendor's request to its connection's hook URL (docs/connections.md): the token → the connection (404 for an
 * unknown, revoked or expired one, never saying which) → its intake limit → a URL-verification handshake, answered as
 * the vendor requires → the vendor's own proof on the raw bytes (D-285) → the body as one JSON tree → stored
 * (store first, map after: a payload the profile cannot map is held for the owner, never refused) → the answer the
 * vendor expects.
 */
export function answerHook(args: {
  ctx: GatewayContext;
  hooks: HookServices;
  request: HookHttpRequest;
}): Promise<HookAnswer> {
  return args.ctx.tracing.enabled ? tracedHook(args) : hook(args, undefined);
}

/**
 * The hook request as the root of its leads' trace, or a child of the vendor's own `traceparent`: named by its route,
 * never by its token (docs/tracing.md).
 */
async function tracedHook(args: {
  ctx: GatewayContext;
  hooks: HookServices;
  request: HookHttpRequest;
}): Promise<HookAnswer> {
  const span = args.ctx.tracing.start(`${args.request.method} /hooks/{token}`, {
    parent: args.request.header("traceparent"),
    kind: SpanKind.SERVER,
    attributes: { "http.request.method": args.request.method, "http.route": "/hooks/{token}" },
  });
  try {
    const answer = await hook(args, span);
    span.setAttribute("http.response.status_code", answer.status);
    span.end();
    return answer;
  } catch (error) {
    if (error instanceof ApiError) span.setAttribute("http.response.status_code", error.status);
    endFailed(span, error);
    throw error;
  }
}

async function hook(
  { ctx, hooks, request }: { ctx: GatewayContext; hooks: HookServices; request: HookHttpRequest },
  span: Span | undefined,
): Promise<HookAnswer> {
  const row = await connectionOf(ctx, request.token);
  span?.setAttribute("gateway.connection.id", row.id);
  hooks.limiter.take(row.id);
  const connection = hooks.resolver.resolve(row);
  const { declarations, secrets } = connection;
  const hookRequest: HookRequest = {
    method: request.method,
    url: request.url,
    headers: request.headers,
    query: request.query,
    rawBody: Buffer.alloc(0),
  };
  const handshake = answerHandshake(declarations.handshake, hookRequest, secrets);
  if (handshake.kind === "answer") return { status: 200, contentType: handshake.contentType, body: handshake.body };
  if (handshake.kind === "refused") {
    const code = handshake.status === 503 ? "unavailable" : handshake.status === 403 ? "forbidden" : "bad_request";
    throw new ApiError(code, handshake.reason, { details: { reason: handshake.code } });
  }
  if (request.method !== "POST") throw new ApiError("method_not_allowed", "a hook URL takes POST");
  hookRequest.rawBody = Buffer.from(await request.read(MAX_BODY_BYTES));
  const now = ctx.now().getTime();
  const parsedFirst = proofNeedsParsedBody(declarations.proof);
  if (!parsedFirst) checkProof(hooks, row, verifyProof(declarations.proof, hookRequest, secrets, now));
  const body = await parsed(hookRequest.rawBody, request.header("content-type"));
  if (parsedFirst) checkProof(hooks, row, verifyProof(declarations.proof, { ...hookRequest, body }, secrets, now));
  await hooks.accept(connection, { raw: hookRequest.rawBody, body }, span);
  const answer = renderAnswer(declarations.answer, body);
  return { status: answer.status, contentType: answer.contentType, body: answer.body };
}

/** The connection a token names, if it may still be used: unknown, revoked and expired ones are one 404 (§7). */
async function connectionOf(ctx: GatewayContext, token: string): Promise<ConnectionRow> {
  if (!isHookToken(token)) throw notFound();
  const digest = digestHookToken(token);
  const found = ctx.connections.findByToken(digest);
  const row = found instanceof Promise ? await found : found;
  if (!row || row.revokedAt !== null) throw notFound();
  // The previous token of a rotation, past its overlap.
  if (
    row.tokenDigest !== digest &&
    (row.previousValidUntil === null || Date.parse(row.previousValidUntil) <= ctx.now().getTime())
  ) {
    throw notFound();
  }
  return row;
}

function checkProof(hooks: HookServices, row: ConnectionRow, result: { ok: true } | ProofRefused): void {
  if (result.ok) return;
  hooks.proofFailures.add(row.id, result.code);
  throw new ApiError(result.status === 503 ? "unavailable" : "unauthorized", result.reason, {
    details: { reason: result.code },
  });
}

/** The body as one tree; a refused one answers its code's status (D-284), all of them the vendor's doing. */
async function parsed(raw: Buffer, contentType: string | undefined): Promise<JsonValue> {
  try {
    return await parseHookBody(raw, contentType);
  } catch (error) {
    if (!(error instanceof HookBodyError)) throw error;
    const status = HOOK_BODY_ERRORS[error.code].status;
    const code = status === 413 ? "payload_too_large" : status === 415 ? "unsupported_media_type" : "bad_request";
    throw new ApiError(code, error.message, { details: { reason: error.code, ...error.details } });
  }
}
