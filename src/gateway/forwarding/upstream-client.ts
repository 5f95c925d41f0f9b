import { API_VERSION_HEADER } from "../../contract/api-version.js";

export interface UpstreamResponse {
  /** When the request went out (epoch ms), read before sending: the attempt's time, whenever it is recorded. */
  startedAt: number;
  status: number | null;
  body: unknown;
  error: string | null;
  latencyMs: number;
  requestId: string | null;
  apiVersion: string | null;
  retryAfter: string | null;
}

/**
 * One POST to the Inbound API (§4.2) with the company's general key. Never throws: a network error or timeout comes
 * back as `status: null` with the error, for the retry policy to judge.
 */
export async function postUpstream(input: {
  baseUrl: string;
  path: "/api/inbound/leads" | "/api/inbound/appointments";
  apiKey: string;
  body: unknown;
  timeoutMs: number;
  requestId: string;
  /** The send's span as the platform's parent (W3C Trace Context); null with tracing off. */
  traceparent?: string | null;
}): Promise<UpstreamResponse> {
  const startedAt = Date.now();
  const started = performance.now();
  try {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-api-key": input.apiKey,
      "x-request-id": input.requestId,
    };
    if (input.traceparent) headers.traceparent = input.traceparent;
    const res = await fetch(new URL(input.path, input.baseUrl), {
      method: "POST",
      headers,
      body: JSON.stringify(input.body),
      signal: AbortSignal.timeout(input.timeoutMs),
      redirect: "manual",
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? (JSON.parse(text) as unknown) : null;
    } catch {
      // Not JSON: keep the text for the attempt's record.
    }
    return {
      startedAt,
      status: res.status,
      body,
      error: res.ok ? null : errorMessage(body, res.status),
      latencyMs: Math.round(performance.now() - started),
      requestId: res.headers.get("x-request-id"),
      apiVersion: res.headers.get(API_VERSION_HEADER),
      retryAfter: res.headers.get("retry-after"),
    };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      startedAt,
      status: null,
      body: null,
      error: timedOut ? `no answer within ${input.timeoutMs} ms` : `network error: ${(error as Error).message}`,
      latencyMs: Math.round(performance.now() - started),
      requestId: null,
      apiVersion: null,
      retryAfter: null,
    };
  }
}

function errorMessage(body: unknown, status: number): string {
  const message = body && typeof body === "object" && "error" in body ? String(body.error) : undefined;
  return `upstream ${status}${message ? `: ${message}` : ""}`;
}
