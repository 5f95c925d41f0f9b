import type { Target } from "./target.js";

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: unknown;
  text: string;
  /** When the request was sent and its response received (performance.now()), for window-edge checks (§8). */
  sentAt: number;
  receivedAt: number;
}

export interface CallOptions {
  key?: string;
  /** Serialised as JSON with content-type application/json. */
  json?: unknown;
  /** A raw body, sent as is. */
  body?: string;
  headers?: Record<string, string>;
  /** Wait out 429s (remote targets only; the §8 tests turn it off to see them). */
  retry429?: boolean;
}

/** One HTTP request to the target over the network, as a partner would send it. */
export async function call(target: Target, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers["x-api-key"] = options.key;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  for (let attempt = 0; ; attempt++) {
    const sentAt = performance.now();
    const res = await fetch(`${target.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    const receivedAt = performance.now();
    const retry = (options.retry429 ?? true) && target.remote && res.status === 429 && attempt < 5;
    if (retry) {
      // Time is what the target asked for (§8: wait Retry-After before trying again); a remote target offers no state.
      const waitMs = Number(res.headers.get("retry-after") ?? "1") * 1000 + Math.random() * 250;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text, sentAt, receivedAt };
  }
}

/** The §7 error body: a JSON object whose `error` is a string. */
export function errorMessage(reply: Reply): string {
  const body = reply.body;
  if (body && typeof body === "object" && "error" in body && typeof body.error === "string") return body.error;
  throw new Error(`expected an {error: string} body, got ${reply.status} ${reply.text}`);
}
