import type { Logger } from "../log.js";

/** Past this, a stop that has not finished is abandoned: the process exits 1 rather than hang a deployment. */
const HARD_DEADLINE_MS = 30_000;

/**
 * Runs `stop` once on the first SIGTERM or SIGINT, then exits 0 (1 if it failed or overran the hard deadline). A second
 * signal while stopping is ignored: the steps already give everything in flight its own deadline.
 */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    const overrun = setTimeout(() => {
      log.error({ deadlineMs: HARD_DEADLINE_MS }, "shutdown did not finish in time");
      process.exit(1);
    }, HARD_DEADLINE_MS);
    overrun.unref();
    stop().then(
      () => {
        log.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handle);
  process.on("SIGINT", handle);
}
