import { OutageRetryClosedError } from "../outage/index.js";

/**
 * A loop's pump run one at a time: its reads are asynchronous, and two at once would launch one row twice in this
 * process. A request while it runs makes it run once more when it ends; requests within one turn of the event loop are
 * one (`schedule`). Never rejects: a failure goes to `onError`, and an outage's close (OutageRetryClosedError) ends it quietly.
 * Used by the webhook dispatcher and the connections fetcher.
 */
export class SerialPump {
  #queued = false;
  #running = false;
  #again = false;
  #run: Promise<void> | undefined;

  constructor(
    private readonly pump: () => Promise<void>,
    private readonly closed: () => boolean,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs the pump after this turn of the event loop; several calls within it are one. */
  schedule(): void {
    if (this.#queued || this.closed()) return;
    this.#queued = true;
    setImmediate(() => {
      this.#queued = false;
      void this.run(); // never rejects
    });
  }

  /** Runs the pump now, or once more after the run in progress. */
  async run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    const run = (async () => {
      try {
        do {
          this.#again = false;
          await this.pump();
        } while (this.#again && !this.closed());
      } catch (error) {
        if (!(error instanceof OutageRetryClosedError)) this.onError(error);
      } finally {
        this.#running = false;
      }
    })();
    this.#run = run;
    await run;
  }

  /** Resolves when the run in progress (if any) has ended. */
  async settled(): Promise<void> {
    await this.#run;
  }
}
