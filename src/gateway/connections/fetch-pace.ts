import { SendWindow } from "../forwarding/send-window.js";
import { Lru } from "../profiles/lru.js";

/** One connection's fetches: its declared rate as forwarding's exact window, and a pause a 429 asked for. */
interface Pace {
  perMinute: number;
  window: SendWindow;
  /** Date.now() until which the vendor asked (Retry-After) for no request of this connection. */
  pausedUntil: number;
}

/**
 * How fast each connection's notified records are fetched (docs/connections.md, "Fetch after notify"; D-321): at most
 * `fetch.perMinute` requests in any span of a minute as the vendor counts them, kept with forwarding's own limiter
 * node (send-window.ts: a slot holds the time the answer came, so the vendor's count holds whatever the network's
 * delay), and nothing while the vendor's Retry-After runs. `minuteMs` shortens the minute for tests. Per process:
 * with several gateway processes each keeps its own window (D-321).
 */
export class FetchPace {
  readonly #paces = new Lru<string, Pace>(10_000);

  constructor(private readonly minuteMs: number) {}

  /** When the connection's next fetch may go (Date.now() time; +Infinity while a slot it needs is in flight). */
  allowedAt(connectionId: string, perMinute: number, now: number): number {
    const pace = this.#pace(connectionId, perMinute);
    return Math.max(pace.window.allowedAt(now), pace.pausedUntil);
  }

  /** A fetch goes now: its slot, to close with the answer's time. */
  record(connectionId: string, perMinute: number, now: number): (answeredAt: number) => void {
    const pace = this.#pace(connectionId, perMinute);
    const slot = pace.window.record(now);
    let open = true;
    return (answeredAt) => {
      if (!open) return;
      open = false;
      pace.window.complete(slot, answeredAt);
    };
  }

  /** The vendor's Retry-After: the connection's fetches wait until then. */
  pause(connectionId: string, until: number): void {
    const pace = this.#paces.get(connectionId);
    if (pace) pace.pausedUntil = Math.max(pace.pausedUntil, until);
  }

  #pace(connectionId: string, perMinute: number): Pace {
    const known = this.#paces.get(connectionId);
    // A changed rate starts a window of its own: the connection's declaration was edited.
    if (known && known.perMinute === perMinute) return known;
    const pace = { perMinute, window: new SendWindow(perMinute, this.minuteMs), pausedUntil: known?.pausedUntil ?? 0 };
    this.#paces.set(connectionId, pace);
    return pace;
  }
}
