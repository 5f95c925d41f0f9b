import type { GatewayContext } from "../context.js";
import { OutageRetryClosedError } from "../outage/index.js";
import { purgeExpiredPayloads } from "./retention.js";

const HOUR_MS = 3_600_000;

/**
 * The retention purge (purgeExpiredPayloads) at start and every `everyMs` after, in the background (D-330): a purge
 * meeting an outage of the database waits it out (logged once, by its loop), and never stops the gateway's start;
 * a purge still waiting when the next is due is not doubled. `close()` stops it.
 */
export function scheduleRetention(ctx: GatewayContext, everyMs = HOUR_MS): { ran: Promise<void>; close(): void } {
  const closed = new AbortController();
  const retry = ctx.outages.retry({ name: "retention purge", signal: closed.signal });
  let running: Promise<void> | undefined;
  const purge = () => {
    running ??= retry
      .run(() => purgeExpiredPayloads({ ctx }))
      .then(
        (purged) => ctx.log.info(purged, "retention purge"),
        (error: unknown) => {
          if (!(error instanceof OutageRetryClosedError)) ctx.log.error({ err: error }, "retention purge failed");
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const ran = purge();
  const timer = setInterval(() => void purge(), everyMs);
  timer.unref();
  return {
    /** The first purge, settled (it never rejects). */
    ran,
    close() {
      clearInterval(timer);
      closed.abort();
    },
  };
}
