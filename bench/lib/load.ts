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
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: options.body,
    duration: options.seconds,
    connections: options.connections,
    ...(options.rate ? { overallRate: options.rate } : {}),
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
