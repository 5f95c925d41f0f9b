import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { bodyBytes } from "../contract/signing.js";
import { guardedLookup, type Resolver, systemResolver } from "./guarded-lookup.js";
import { OutboundError } from "./outbound-error.js";
import { compilePolicy, normaliseHost, type OutboundPolicy } from "./policy.js";
import { effectivePort, validateWebhookUrl } from "./webhook-url.js";

/** §6.4.1: the sender waits up to 10 seconds for a response — in total: lookup, connect, TLS, headers and body. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A receiver's answer is read only for diagnostics; more than this is not read (and does not fail the delivery). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface GuardedFetchOptions {
  policy: OutboundPolicy;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Name resolution; the system resolver unless given (tests inject one). */
  resolve?: Resolver;
  /** Extra trusted CA certificates (PEM), e.g. a private CA; the system roots stay trusted. */
  ca?: string | readonly string[];
}

export interface OutboundRequest {
  method?: string;
  headers?: Readonly<Record<string, string>>;
  body?: Uint8Array | string;
}

export interface OutboundResponse {
  status: number;
  /** 2xx. A 3xx is not followed (a redirect could lead anywhere) and so is a failed delivery, like any non-2xx. */
  ok: boolean;
  headers: Headers;
  /** At most `maxResponseBytes` of the body. */
  body: Uint8Array;
  truncated: boolean;
}

export interface GuardedFetch {
  /** Throws `OutboundError` when nothing usable came back; any HTTP status is a response. */
  fetch(url: string | URL, request?: OutboundRequest): Promise<OutboundResponse>;
  /** Closes pooled connections. */
  close(): void;
}

/**
 * The only way webhook deliveries leave the process (the SSRF guard, docs/webhooks-gateway.md). The URL is checked first (scheme,
 * credentials, port, IP literals); names are checked at connect time by the agents' lookup, so a DNS answer that
 * changes between a check and the connection cannot pass. node:http never follows redirects and ignores proxy
 * variables, so neither can route around the check. Connections are pooled per agent (keep-alive).
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const policy = compilePolicy(options.policy);
  const resolve = options.resolve ?? systemResolver;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  // Idle pooled connections close after 4 s (or sooner when the server announces its keep-alive timeout): before
  // the 5 s common to servers, so a reused connection is rarely one the server is closing at that moment.
  const pooling = { keepAlive: true, timeout: 4_000 };
  const ca = options.ca === undefined ? {} : { ca: [...(Array.isArray(options.ca) ? options.ca : [options.ca])] };
  // One agent per scheme and port: the connect-time check sees the port (sandbox mode may allow the local host on
  // some ports only), and connections are pooled per host and port anyway.
  const agents = new Map<string, http.Agent>();
  const agentFor = (plaintext: boolean, port: number): http.Agent => {
    const key = `${plaintext ? "http" : "https"}:${port}`;
    let agent = agents.get(key);
    if (!agent) {
      const lookup = guardedLookup(policy, { plaintext, resolve, port });
      agent = plaintext ? new http.Agent({ ...pooling, lookup }) : new https.Agent({ ...pooling, lookup, ...ca });
      agents.set(key, agent);
    }
    return agent;
  };

  return {
    fetch(input, request = {}) {
      const check = validateWebhookUrl(String(input), policy);
      if (!check.ok) {
        return Promise.reject(
          new OutboundError("url_refused", `webhook URL ${check.message}`, { reason: check.reason }),
        );
      }
      const url = check.url;
      const plaintext = url.protocol === "http:";
      const body = request.body === undefined ? undefined : bodyBytes(request.body);
      return send(url, {
        agent: agentFor(plaintext, effectivePort(url)),
        transport: plaintext ? http : https,
        method: request.method ?? "POST",
        headers: { ...request.headers, ...(body ? { "content-length": String(body.byteLength) } : {}) },
        body,
        timeoutMs,
        maxResponseBytes,
      });
    },
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}

interface SendOptions {
  agent: http.Agent;
  transport: typeof http | typeof https;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
}

function send(url: URL, options: SendOptions): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const req = options.transport.request({
      agent: options.agent,
      hostname: normaliseHost(url.hostname),
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: options.method,
      headers: options.headers,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new OutboundError("timeout", `no complete response within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(asOutboundError(error, timedOut, options.timeoutMs));
    };
    req.on("error", fail);
    req.on("response", (res) => {
      readCapped(res, options.maxResponseBytes).then((read) => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, headers: toHeaders(res), ...read });
      }, fail);
    });
    req.end(options.body);
  });
}

/** Reads up to `max` bytes; past that the connection is dropped rather than drained. */
async function readCapped(res: IncomingMessage, max: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    if (size + buffer.byteLength > max) {
      chunks.push(buffer.subarray(0, max - size));
      res.destroy();
      return { body: new Uint8Array(Buffer.concat(chunks)), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.byteLength;
  }
  return { body: new Uint8Array(Buffer.concat(chunks)), truncated: false };
}

function toHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i];
    const value = res.rawHeaders[i + 1];
    if (name === undefined || value === undefined) continue;
    try {
      headers.append(name, value);
    } catch {
      // A header the Fetch API rejects is of no use to the delivery record; keep the rest.
    }
  }
  return headers;
}

function asOutboundError(error: unknown, timedOut: boolean, timeoutMs: number): OutboundError {
  if (timedOut) return new OutboundError("timeout", `no complete response within ${timeoutMs} ms`, { cause: error });
  if (error instanceof OutboundError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new OutboundError("network", message, { cause: error });
}
