import { ApiError } from "../../../http/errors.js";
import type { GatewayContext } from "../../context.js";
import type { OutageRetry } from "../../outage/index.js";
import { CompanyPoller, type StreamSubscriber } from "./company-poller.js";
import { STREAM_LIMITS, type StreamLimits } from "./limits.js";

/**
 * The live logs open in this process: one poller per company shared by that company's streams, and the caps (D-237):
 * at most `perSession` streams per owner session or token (429), at most `perProcess` in all (503).
 */
export class SubmissionStreamHub {
  readonly #ctx: GatewayContext;
  readonly limits: StreamLimits;
  readonly #pollers = new Map<string, CompanyPoller>();
  readonly #perSession = new Map<string, number>();
  #open = 0;
  /** Every company's polls wait out an outage of the database together: one try at a time, logged once (D-330). */
  readonly #outage: OutageRetry;

  constructor(ctx: GatewayContext, limits: Partial<StreamLimits> = {}) {
    this.#ctx = ctx;
    this.limits = { ...STREAM_LIMITS, ...limits };
    this.#outage = ctx.outages.retry({ name: "live log poller" });
  }

  /** Streams open now, and companies polled now. */
  get stats(): { streams: number; companies: number } {
    return { streams: this.#open, companies: this.#pollers.size };
  }

  /** Opens a stream of `companyId`'s changes for session `sessionId`; the returned function closes it (once). */
  open(companyId: string, sessionId: string, subscriber: StreamSubscriber): () => void {
    const mine = this.#perSession.get(sessionId) ?? 0;
    if (mine >= this.limits.perSession) {
      throw new ApiError(
        "rate_limited",
        `at most ${this.limits.perSession} live submission streams per session: close another tab's live log first`,
        { details: { limit: this.limits.perSession } },
      );
    }
    if (this.#open >= this.limits.perProcess) {
      throw new ApiError("unavailable", "this gateway process has no room for another live stream: try again later", {
        headers: { "retry-after": "30" },
      });
    }
    this.#perSession.set(sessionId, mine + 1);
    this.#open++;
    let poller = this.#pollers.get(companyId);
    if (!poller) {
      poller = new CompanyPoller(this.#ctx, companyId, this.limits, this.#outage);
      this.#pollers.set(companyId, poller);
    }
    poller.add(subscriber);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.#open--;
      const left = (this.#perSession.get(sessionId) ?? 1) - 1;
      if (left > 0) this.#perSession.set(sessionId, left);
      else this.#perSession.delete(sessionId);
      if (poller.remove(subscriber)) this.#pollers.delete(companyId);
    };
  }
}
