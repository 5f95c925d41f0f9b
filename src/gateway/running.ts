import type { OutboundPolicy } from "../net/index.js";
import type { SubmissionRow } from "./storage/submissions/index.js";

/** What the rest of the gateway asks of forwarding. */
export interface ForwardingPort {
  /** A submission was committed (or queued again): forward it. Repeats are harmless. */
  notify(row: SubmissionRow): void;
  /** A credential's value changed: resume what waited on it. */
  credentialRotated(credentialId: string): Promise<void>;
  /** The submission once forwarded or failed, or undefined after `timeoutMs`. */
  waitFor(submissionId: string, timeoutMs: number): Promise<SubmissionRow | undefined>;
}

/** What a hook asks of the fetcher: notified records were stored, due at `dueAt` (ms). Repeats are harmless. */
export interface FetcherPort {
  notify(dueAt: number): void;
}

/** What service verbs need of the running webhook machinery. */
export interface WebhookRuntime {
  /** A subscription has work due at `dueAt` (ms), or changed: wake the dispatcher. */
  notify(subscriptionId: string, dueAt: number): void;
  /** Where deliveries may go (SSRF policy): checked at subscription creation and at every connection. */
  policy: OutboundPolicy;
}

/**
 * The parts of a gateway that run after its context is built (D-370): forwarding, the webhook machinery, the fetcher
 * of notified records. They are made from the context and call one another through it (a fetched record is handed to
 * forwarding, a settlement wakes the webhook dispatcher), so the context is built with this, empty, and each part is
 * put in by the start that made it and taken out when it stops. Without a part (a CLI, a test of one verb, a process
 * that does not forward) what it would be told waits in the database for the next start, and URLs are checked with
 * the mode's own policy. Work inside a transaction does not see it (TransactionContext): a part is told after the
 * commit, never of a row that may yet roll back.
 */
export class Running {
  readonly #modePolicy: OutboundPolicy;
  #forwarding: ForwardingPort | undefined;
  #fetcher: FetcherPort | undefined;
  #webhooks: WebhookRuntime | undefined;

  constructor(modePolicy: OutboundPolicy) {
    this.#modePolicy = modePolicy;
  }

  /** Forwarding, when this process forwards. */
  get forwarding(): ForwardingPort | undefined {
    return this.#forwarding;
  }

  /** The fetcher of notified records, when this process runs one. */
  get fetcher(): FetcherPort | undefined {
    return this.#fetcher;
  }

  /** Where outbound calls may go: the webhook machinery's policy once it runs, else the mode's. */
  get outboundPolicy(): OutboundPolicy {
    return this.#webhooks?.policy ?? this.#modePolicy;
  }

  /** A subscription has work due at `dueAt` (ms): wake the webhook dispatcher, if one runs. */
  webhookDue(subscriptionId: string, dueAt: number): void {
    this.#webhooks?.notify(subscriptionId, dueAt);
  }

  /** Forwarding runs from now on; the returned function takes it out (a no-op once another took its place). */
  forwardingStarted(port: ForwardingPort): () => void {
    this.#forwarding = port;
    return () => {
      if (this.#forwarding === port) this.#forwarding = undefined;
    };
  }

  /** The fetcher runs from now on; the returned function takes it out. */
  fetcherStarted(port: FetcherPort): () => void {
    this.#fetcher = port;
    return () => {
      if (this.#fetcher === port) this.#fetcher = undefined;
    };
  }

  /** The webhook machinery runs from now on; the returned function takes it out. */
  webhooksStarted(runtime: WebhookRuntime): () => void {
    this.#webhooks = runtime;
    return () => {
      if (this.#webhooks === runtime) this.#webhooks = undefined;
    };
  }
}
