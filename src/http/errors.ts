import { HTTPException } from "hono/http-exception";
import { outageCause } from "../gateway/outage/store-outage.js";
import { codeOfStatus, type ErrorCode, type ErrorStatus, statusOf } from "./error-codes.js";

/**
 * One error contract (spec §7): domain errors carry a code from a closed set (error-codes.ts), mapped to a status in
 * one place. The body is `{error: string}` plus additive fields (`field`, `scope`, …); the owner API adds the `code`
 * and the `requestId` (codedErrorBody).
 */
export type { ErrorCode, ErrorStatus } from "./error-codes.js";

export class ApiError extends Error {
  override name = "ApiError";
  readonly code: ErrorCode;
  /** Additive fields merged into the body, e.g. `{field: "email"}`. */
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  get status(): ErrorStatus {
    return statusOf(this.code);
  }

  toBody(): Record<string, unknown> {
    return { error: this.message, ...this.details };
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError("bad_request", message, { details });
export const unauthorized = (message = "missing, malformed or unknown API key") =>
  new ApiError("unauthorized", message);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new ApiError("forbidden", message, { details });
/** §7: 404 never confirms that the resource exists. */
export const notFound = (message = "not found") => new ApiError("not_found", message);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new ApiError("conflict", message, { details });

/** How long a client is asked to wait when the database is away (D-331): most outages are a restart of seconds. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The error a request meets when the database (or, for a few owner routes, Redis) cannot be reached or cannot write
 * (D-331): 503 with `retry-after`, never a 500 and never a 202 — intake answers 202 only after its commit.
 */
export function storeUnavailable(cause: unknown): ApiError {
  const reason = outageCause(cause)?.reason ?? "unreachable";
  const what = reason === "full" ? "is full" : reason === "read_only" ? "is read-only" : "is unavailable";
  return new ApiError("store_unavailable", `the gateway's database ${what}; retry shortly`, {
    details: { reason },
    headers: { "retry-after": String(STORE_RETRY_AFTER_SECONDS) },
    cause,
  });
}

/**
 * The answer to an error (§7): an ApiError's own status, body and headers; a store outage a 503 with `retry-after`
 * (storeUnavailable); anything else unexpected is a bare 500.
 */
export function errorAnswer(err: unknown): {
  status: number;
  code: ErrorCode;
  body: Record<string, unknown>;
  headers: Record<string, string>;
} {
  if (err instanceof ApiError) return { status: err.status, code: err.code, body: err.toBody(), headers: err.headers };
  if (outageCause(err)) return errorAnswer(storeUnavailable(err));
  if (err instanceof HTTPException) {
    const body = { error: err.message || "request failed" };
    return { status: err.status, code: codeOfStatus(err.status), body, headers: {} };
  }
  return { status: 500, code: "internal", body: { error: "internal error" }, headers: {} };
}

/**
 * The owner API's error body (D-231): §7's `error` message, then the stable `code` and the request's id (the
 * `x-request-id` header's value, for a support request), then the error's additive fields.
 */
export function codedErrorBody(
  answer: { code: ErrorCode; body: Record<string, unknown> },
  requestId: string,
): Record<string, unknown> {
  const { error, ...details } = answer.body;
  return { error, code: answer.code, requestId, ...details };
}
