import type { SSEStreamingApi } from "hono/streaming";
import type { SubmissionRow } from "../../storage/submissions/index.js";
import { submissionLogView } from "../list-submissions.js";
import type { StreamLimits } from "./limits.js";

/** How long the last event (`end`) may take to be read before the stream is cut. */
const END_GRACE_MS = 5_000;

/** One open stream: its writes in order, its backlog bounded, its end said once. */
export class LiveStream {
  readonly ended: Promise<void>;
  #finish: () => void = () => {};
  #done = false;
  #writes: Promise<unknown> = Promise.resolve();
  #backlog = 0;
  readonly #stream: SSEStreamingApi;
  readonly #limits: StreamLimits;

  constructor(stream: SSEStreamingApi, limits: StreamLimits) {
    this.#stream = stream;
    this.#limits = limits;
    this.ended = new Promise((resolve) => {
      this.#finish = resolve;
    });
  }

  ready(): Promise<unknown> {
    return this.#write(() => this.#stream.writeSSE({ event: "ready", data: "{}", retry: 3_000 }));
  }

  send(row: SubmissionRow): void {
    if (this.#done) return;
    // A client that stopped reading: end its stream rather than hold its events (it loads the log again).
    if (this.#backlog >= this.#limits.maxBacklog) {
      this.end("overflow");
      return;
    }
    const data = JSON.stringify(submissionLogView(row));
    void this.#write(() => this.#stream.writeSSE({ event: "submission", id: `${row.updatedAt} ${row.id}`, data }));
  }

  heartbeat(): void {
    if (!this.#done) void this.#write(() => this.#stream.write(": heartbeat\n\n"));
  }

  /** Ends the stream; with a reason, the client is told why first (`null`: the client went away). */
  end(reason: string | null): void {
    if (this.#done) return;
    this.#done = true;
    if (reason === null) {
      this.#finish();
      return;
    }
    // A client that stopped reading never takes the last event: after a while the stream is cut instead.
    const cut = setTimeout(() => {
      this.#stream.abort();
      this.#finish();
    }, END_GRACE_MS);
    cut.unref();
    void this.#write(() => this.#stream.writeSSE({ event: "end", data: JSON.stringify({ reason }) }), true).then(() => {
      clearTimeout(cut);
      this.#finish();
    });
  }

  #write(write: () => Promise<unknown>, last = false): Promise<unknown> {
    this.#backlog++;
    this.#writes = this.#writes
      .then(() => (this.#done && !last ? undefined : write()))
      .catch(() => undefined)
      .finally(() => {
        this.#backlog--;
      });
    return this.#writes;
  }
}
