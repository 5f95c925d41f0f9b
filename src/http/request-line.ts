import { outageCause } from "../gateway/outage/store-outage.js";
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

/**
 * One line per request, and its metrics; only a 5xx is logged as an error, with the error behind it — except a store
 * outage's 503, a warning naming the outage's reason: the outage itself is logged once by the loops that wait for it
 * (D-332), not with a stack per request.
 */
export class RequestLog {
  readonly #options: { log: Logger; metrics?: HttpMetrics; maskPath?: (path: string) => string };
  /**
   * The logger's child without its redaction, for the lines that carry no error: their fields are fixed and none can
   * hold a secret (a key is logged by its first 14 characters), and the redaction's wildcard paths cost about 3.7 µs
   * a line, measured, on every request. A 5xx line carries an error, whose properties are not known: it keeps it.
   * Made once per app, with it (STYLE 11: no side table keyed by the logger).
   */
  readonly #unredacted: Logger;

  constructor(options: { log: Logger; metrics?: HttpMetrics; maskPath?: (path: string) => string }) {
    this.#options = options;
    this.#unredacted = options.log.child({}, { redact: { paths: [] } });
  }

  write(request: RequestLine): void {
    const options = this.#options;
    const { requestId, method, route, status, key, failure } = request;
    const path = options.maskPath ? options.maskPath(request.path) : request.path;
    const ms = Math.round((performance.now() - request.started) * 100) / 100;
    options.metrics?.observe(method, route, status, ms / 1000);
    const line = { method, path, route, status, ms, key };
    const outage = status === 503 ? outageCause(failure) : undefined;
    if (outage) options.log.warn({ requestId, ...line, outage: outage.reason }, "request failed: store unavailable");
    else if (status >= 500) options.log.error({ requestId, ...line, err: failure }, "request failed");
    else this.#unredacted.info({ requestId, ...line }, "request");
  }
}
