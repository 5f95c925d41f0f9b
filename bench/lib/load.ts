import autocannon from "autocannon";

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
}

/** One autocannon run against a POST endpoint; `rate` caps the request rate (requests/s over all connections). */
export async function load(options: {
  url: string;
  body: string;
  headers?: Record<string, string>;
  seconds: number;
  connections: number;
  rate?: number;
  /**
   * Each request's own body and headers, made in this (the load generator's) process: a hook's payloads differ (a
   * vendor's retry of the same payload is stored once) and each carries its own signature.
   */
  each?: () => { body: string; headers: Record<string, string> };
}): Promise<LoadResult> {
  const each = options.each;
  const result = await autocannon({
    url: options.url,
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: options.body,
    duration: options.seconds,
    connections: options.connections,
    ...(options.rate ? { overallRate: options.rate } : {}),
    ...(each
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => {
                const made = each();
                return { ...request, body: made.body, headers: { ...request.headers, ...made.headers } };
              },
            },
          ],
        }
      : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]),
    ),
  };
}
