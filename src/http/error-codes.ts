/**
 * The closed list of error codes (docs/owner-api.md, "Errors"; D-231). Each code has one status and one meaning; the
 * owner API puts the code in every error body beside §7's `error` message. A code is never renamed or re-meant:
 * clients switch on it. Intake (the Inbound API's paths) answers §7's body exactly and does not carry it.
 */
export const ERROR_CODES = {
  bad_request: {
    status: 400,
    meaning: "The request is invalid: a field (named in the message and in `field`), the JSON, its nesting.",
  },
  unauthorized: {
    status: 401,
    meaning: "No valid session or bearer token (missing, unknown, expired, revoked), or a wrong sign-in password.",
  },
  forbidden: { status: 403, meaning: "The caller's role may not do this (the route's `x-required-role`)." },
  csrf_failed: {
    status: 403,
    meaning: "A change through the session cookie without the session's CSRF token in `x-csrf-token`.",
  },
  not_found: {
    status: 404,
    meaning: "No such resource for this company: another company's is answered the same way (§7).",
  },
  method_not_allowed: {
    status: 405,
    meaning: "The path does not take this method (a hook URL takes POST, and GET for its vendor's URL verification).",
  },
  conflict: { status: 409, meaning: "The request conflicts with the resource's current state (message says how)." },
  payload_too_large: { status: 413, meaning: "The body is over the route's limit (its description states it)." },
  unsupported_media_type: { status: 415, meaning: "The body is not `application/json`." },
  unprocessable: {
    status: 422,
    meaning: "Valid, but refused by a rule: for example a profile version whose golden samples fail.",
  },
  rate_limited: {
    status: 429,
    meaning: "Too many requests of this kind (sign-ins, profile evaluations); wait `retry-after` seconds.",
  },
  internal: { status: 500, meaning: "A fault of the gateway; quote the `requestId` in a support request." },
  bad_gateway: { status: 502, meaning: "The upstream platform answered with a fault." },
  unavailable: { status: 503, meaning: "The gateway is busy (profile evaluators); retry after `retry-after` seconds." },
  store_unavailable: {
    status: 503,
    meaning:
      "The gateway's database cannot be reached or cannot write now (an outage, a full disk): nothing was accepted; retry after `retry-after` seconds.",
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode]["status"];

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export function statusOf(code: ErrorCode): ErrorStatus {
  return ERROR_CODES[code].status;
}

/** The code of an error that carries only a status (an HTTPException): the first code of that status. */
export function codeOfStatus(status: number): ErrorCode {
  const found = ERROR_CODE_LIST.find((code) => ERROR_CODES[code].status === status);
  return found ?? (status >= 500 ? "internal" : "bad_request");
}
