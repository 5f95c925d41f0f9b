/**
 * Why an outbound webhook request did not produce a response. `url_refused` and `address_refused` are the SSRF guard
 * (nothing was sent); `timeout` is the §6.4.1 10 s limit; `network` is anything else (refused connection, TLS).
 */
export type OutboundErrorCode = "url_refused" | "address_refused" | "dns" | "timeout" | "network";

export class OutboundError extends Error {
  override name = "OutboundError";
  readonly code: OutboundErrorCode;
  /** The guard's finer reason (`scheme_not_allowed`, `private`, `metadata`, …) when it refused. */
  readonly reason: string | undefined;

  constructor(code: OutboundErrorCode, message: string, options: { reason?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.reason = options.reason;
  }
}
