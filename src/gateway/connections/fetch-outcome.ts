import { STATUS_CODES } from "node:http";
import { MAX_JSON_DEPTH, nestsDeeper } from "../../http/json-depth.js";
import type { OutboundError, OutboundResponse } from "../../net/index.js";
import { parseRetryAfter } from "../../net/retry-after.js";
import type { JsonValue } from "./bodies/index.js";

/**
 * What one fetch of a notified record gave (docs/connections.md, "Fetch after notify"; D-322): the record, an answer
 * to try again later (the network, a timeout, 5xx, 408, 429 with its Retry-After), or the dead letter with a reason
 * the owner can act on — the vendor refusing the connection's token first among them.
 */
export type FetchOutcome =
  | { kind: "record"; record: JsonValue }
  | { kind: "retry"; reason: string; retryAfterMs?: number }
  | { kind: "failed"; reason: string };

/** Characters of the vendor's error answer kept in the row's last error: enough to read what it said. */
const EXCERPT_CHARS = 200;

/**
 * Graph API error codes that mean the access token is no longer good, whatever the HTTP status (Meta answers them
 * with 400): 190 "Invalid OAuth 2.0 Access Token" (expired, revoked, the password changed) and 102 "API Session"
 * (developers.facebook.com/docs/graph-api/guides/error-handling).
 */
const GRAPH_TOKEN_CODES = new Set([102, 190]);

/** The words the owner reads on a fetch whose token the vendor refused (D-322). */
export const TOKEN_REFUSED = "the vendor token was refused: paste a new one";

/**
 * A response as an outcome. `redact` takes the connection's secrets out of anything quoted from the answer (an API
 * that echoes the request would otherwise put a token into the owner's log). `tokenSecrets`: the secrets the fetch
 * authenticates with, named in the token message so the owner knows which one to paste.
 */
export function responseOutcome(
  response: OutboundResponse,
  nowMs: number,
  redact: (text: string) => string,
  tokenSecrets: readonly string[],
): FetchOutcome {
  const { status } = response;
  const text = new TextDecoder().decode(response.body).replace(/^\uFEFF/, "");
  const said = (): string => {
    const excerpt = redact(text.replace(/\s+/g, " ").trim()).slice(0, EXCERPT_CHARS);
    return `the vendor's API answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ""}${excerpt ? `: ${excerpt}` : ""}`;
  };
  if (status >= 200 && status < 300) {
    if (response.truncated) return { kind: "failed", reason: "the vendor's API answered a record larger than 1 MB" };
    if (nestsDeeper(response.body, MAX_JSON_DEPTH))
      return { kind: "failed", reason: `the fetched record nests deeper than ${MAX_JSON_DEPTH} levels` };
    try {
      return { kind: "record", record: JSON.parse(text) as JsonValue };
    } catch {
      return { kind: "failed", reason: `the vendor's API answered ${status} with a body that is not JSON` };
    }
  }
  if (status === 401 || status === 403 || graphTokenRefused(text)) {
    const which = tokenSecrets.length > 0 ? ` (${tokenSecrets.join(", ")})` : "";
    return { kind: "failed", reason: `${TOKEN_REFUSED}${which}; ${said()}` };
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), nowMs);
    return { kind: "retry", reason: said(), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  if (status >= 500 || status === 408) return { kind: "retry", reason: said() };
  if (status >= 300 && status < 400) return { kind: "failed", reason: `${said()} (a redirect, which is not followed)` };
  return { kind: "failed", reason: said() };
}

/**
 * A request that got no answer: tried again (the network, a timeout, a name that did not resolve, an address the
 * guard refused at connect time, which DNS may change), except a URL the guard refuses outright, which no retry
 * changes.
 */
export function networkOutcome(error: OutboundError): FetchOutcome {
  if (error.code === "url_refused") {
    return { kind: "failed", reason: `the outbound guard refused the fetch URL (${error.reason ?? error.code})` };
  }
  return { kind: "retry", reason: `the vendor's API was not reached: ${error.message}` };
}

function graphTokenRefused(text: string): boolean {
  if (!text.includes('"error"')) return false;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === "number" && GRAPH_TOKEN_CODES.has(parsed.error.code);
  } catch {
    return false;
  }
}
