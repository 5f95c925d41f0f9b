import { z } from "zod";

const rate = z.number().min(0).max(1);

/**
 * A fault injected into one inbound route (sandbox only, behind the admin token). `route` is `METHOD /path` with
 * `:param` segments (`POST /api/inbound/leads`, `POST /api/inbound/jobs/:job_id/status`) or `*` for every inbound
 * route. Rates are probabilities per request; `count` limits the fault to the next N requests it touches, and
 * `durationMs` to a span of time from when it is added (a 429 storm, an outage), whichever ends first.
 */
export const faultSpecSchema = z
  .object({
    route: z.string().regex(/^(\*|(GET|POST|PUT|PATCH|DELETE) \/\S*)$/, "must be `METHOD /path` or `*`"),
    latencyMs: z.number().int().min(0).max(60_000).default(0),
    /** Delays the answer of a request that was handled: the platform acted on it, a client that gave up never hears. */
    answerLatencyMs: z.number().int().min(0).max(60_000).default(0),
    errorRate: rate.default(0),
    errorStatus: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).default(503),
    resetRate: rate.default(0),
    rateLimitRate: rate.default(0),
    retryAfterSeconds: z.number().int().min(1).max(3600).default(1),
    count: z.number().int().min(1).optional(),
    durationMs: z.number().int().min(1).max(86_400_000).optional(),
  })
  .strict();

export type FaultSpecInput = z.input<typeof faultSpecSchema>;
export type FaultSpec = z.output<typeof faultSpecSchema>;

export interface Fault extends FaultSpec {
  id: string;
  /** Requests this fault has touched. */
  hits: number;
  /** When a fault with `durationMs` ends (ISO-8601 UTC, the sandbox clock). */
  expiresAt?: string;
}
