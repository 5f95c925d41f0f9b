import type { Logger } from "../log.js";
import type { HttpMetrics } from "./metrics.js";

/** What a request's line in the log (and its metrics) says. */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  /** The route's pattern; `unmatched` for none. */
  route: string;
  status: number;
  /** performance.now() when the request arrived. */
  started: number;
  /** First 14 characters of the caller's key (§5.9). */
  key: string | undefined;
  /** The error behind a 5xx. */
  failure?: unknown;
}

/** One line per request, and its metrics; only a 5xx is logged as an error, with the error behind it. */
export function logRequest(options: { log: Logger; metrics?: HttpMetrics }, request: RequestLine): void {
  const { requestId, method, path, route, status, key, failure } = request;
  const ms = Math.round((performance.now() - request.started) * 100) / 100;
  options.metrics?.observe(method, route, status, ms / 1000);
  const line = { method, path, route, status, ms, key };
  if (status >= 500) options.log.error({ requestId, ...line, err: failure }, "request failed");
  else options.log.info({ requestId, ...line }, "request");
}
