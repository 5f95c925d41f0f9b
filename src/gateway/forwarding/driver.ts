import type { ForwardingPort } from "../running.js";

/**
 * A forwarding driver: the queue behind `ForwardingPort`. Two implement it with the same behaviour —
 * `Forwarder` (embedded: the gateway's SQLite database, one process) and `BullmqForwarding` (Redis: any number of
 * API and worker processes sharing the queue and the limiter state).
 */
export interface ForwardingDriver extends ForwardingPort {
  readonly driver: "embedded" | "bullmq";
  /** Submissions queued or waiting for their next attempt in this process's dispatcher (0 where none runs). */
  readonly backlog: number;
  start(): Promise<void>;
  /** Graceful stop: no new sends; in-flight upstream calls get until the deadline. */
  close(deadlineMs?: number): Promise<void>;
}
