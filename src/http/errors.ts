import { HTTPException } from "hono/http-exception";

/**
 * One error contract (spec §7): domain errors carry a code from a closed set, mapped to a status in one place.
 * The body is `{error: string}` plus additive fields (`field`, `scope`, …).
 */
export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export type ErrorStatus = (typeof errorStatus)[ErrorCode];

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
    return errorStatus[this.code];
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

/** The answer to an error (§7): an ApiError's own status, body and headers; anything unexpected is a bare 500. */
export function errorAnswer(err: unknown): {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
} {
  if (err instanceof ApiError) return { status: err.status, body: err.toBody(), headers: err.headers };
  if (err instanceof HTTPException) {
    return { status: err.status, body: { error: err.message || "request failed" }, headers: {} };
  }
  return { status: 500, body: { error: "internal error" }, headers: {} };
}
