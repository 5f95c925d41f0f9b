import { query } from "./api.js";
import { onPageLeave } from "./page-life.js";
import type { Submission } from "./types.js";

export type LiveState = { kind: "connecting" } | { kind: "live" } | { kind: "off"; reason: string };

export interface LiveLog {
  /** Resolves once the stream is open (or could not open, or after 3 s): load the list after it, so nothing is missed. */
  ready: Promise<void>;
  close(): void;
}

/**
 * The live submission log (GET /owner/v1/streams/submissions, server-sent events on the session cookie). Every change
 * after `ready` arrives, in order; a reconnect (the stream dropped and came back) may have missed some, so the page
 * loads the log again then. Closed when the page is left.
 */
export function openLiveLog(
  filter: { keyId?: string; kind?: string },
  handlers: {
    onSubmission(row: Submission): void;
    onState(state: LiveState): void;
    onReconnected(): void;
    onEnded(reason: string): void;
  },
): LiveLog {
  const source = new EventSource(`/owner/v1/streams/submissions${query(filter)}`, { withCredentials: true });
  let opened = false;
  let settle: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    settle = resolve;
    setTimeout(resolve, 3_000);
  });
  const close = () => source.close();
  onPageLeave(close);
  handlers.onState({ kind: "connecting" });
  source.addEventListener("ready", () => {
    handlers.onState({ kind: "live" });
    if (opened) handlers.onReconnected();
    opened = true;
    settle();
  });
  source.addEventListener("submission", (event) => {
    handlers.onSubmission(JSON.parse((event as MessageEvent<string>).data) as Submission);
  });
  source.addEventListener("end", (event) => {
    close();
    const { reason } = JSON.parse((event as MessageEvent<string>).data) as { reason: string };
    handlers.onState({ kind: "off", reason: `live updates ended: ${reason}` });
    handlers.onEnded(reason);
  });
  source.addEventListener("error", () => {
    // CLOSED: refused (too many live logs open, signed out); otherwise EventSource reconnects by itself.
    if (source.readyState === EventSource.CLOSED) {
      handlers.onState({ kind: "off", reason: "live updates are off (too many live logs open, or signed out)" });
    } else handlers.onState({ kind: "connecting" });
    settle();
  });
  return { ready, close };
}
