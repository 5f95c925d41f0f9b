import { ApiError } from "../../http/errors.js";
import type { GatewaySettings } from "../context.js";
import { EngineClosedError, EngineOverloadedError, EngineUnavailableError } from "../profiles/index.js";
import { TokenBuckets } from "../token-buckets.js";

/**
 * What one company's owner tooling — previews, sample tests, replays, saving and publishing, everything of the owner
 * API that evaluates a profile — may ask of the evaluators: a few requests at once, and evaluations from a token bucket
 * (a preview costs one, a replay or a sample run one per payload). Past either, 429 with retry-after; the evaluators
 * themselves busy, 503 with retry-after. Per process, like the other limiters (docs/decisions.md, "Bounded input").
 */
/** What a route that evaluates a profile may answer besides: the quota (429) and busy evaluators (503). */
export const TOOLING = ["rate_limited", "unavailable"] as const;

export class ToolingQuota {
  readonly #running = new Map<string, number>();
  readonly #evaluations: TokenBuckets;

  constructor(private readonly quota: GatewaySettings["toolingQuota"]) {
    this.#evaluations = new TokenBuckets(quota.evaluationsPerSecond, quota.burst);
  }

  async run<T>(companyId: string, evaluations: number, work: () => Promise<T>): Promise<T> {
    const running = this.#running.get(companyId) ?? 0;
    if (running >= this.quota.concurrent) {
      throw limited(`${running} profile evaluations of this company are already running: wait for one`, 1);
    }
    const wait = this.#evaluations.take(companyId, Math.max(1, evaluations));
    if (wait > 0) throw limited("this company's profile evaluation quota is spent for now", wait);
    this.#running.set(companyId, running + 1);
    try {
      return await work();
    } catch (error) {
      throw evaluatorsBusy(error) ?? error;
    } finally {
      const left = (this.#running.get(companyId) ?? 1) - 1;
      if (left > 0) this.#running.set(companyId, left);
      else this.#running.delete(companyId);
    }
  }
}

function limited(message: string, seconds: number): ApiError {
  return new ApiError("rate_limited", message, { headers: { "retry-after": String(seconds) } });
}

/**
 * The engine could not evaluate at all (its lane full or starved, closed, no evaluator starts): the request is fine,
 * the gateway is busy — 503 with retry-after, as intake answers it.
 */
export function evaluatorsBusy(error: unknown): ApiError | undefined {
  if (
    error instanceof EngineOverloadedError ||
    error instanceof EngineUnavailableError ||
    error instanceof EngineClosedError
  ) {
    return new ApiError("unavailable", "profile evaluation is busy; retry shortly", {
      headers: { "retry-after": "1" },
      cause: error,
    });
  }
  return undefined;
}
