import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Logger } from "../../../log.js";
import { type OutageRetry, OutageRetryClosedError } from "../../outage/index.js";
import type { SubmissionAttempt } from "../attempt.js";
import { type ReservedSend, type SendResult, type SendTransport, UNSETTLED_PER_IN_FLIGHT } from "../dispatcher.js";

/**
 * A send job carries the submission's id and its credential's (so that the worker reads the key beside its claim,
 * D-361): the database has everything else, and every secret stays there. A job without the credential (queued by an
 * earlier version) is read as before.
 */
const sendJobSchema = z.object({ submissionId: z.string().startsWith("sub_"), credentialId: z.string().optional() });
type SendJob = z.infer<typeof sendJobSchema>;

/** A send job's progress: when the upstream answered, before the outcome commits (SendTransport's `answered`). */
const answeredSchema = z.object({ answeredAt: z.number() });

/**
 * One config for the send queue (STYLE: one per queue). No BullMQ retries: §7's retries live in the database and go
 * through the limiter again. A completed job is removed at once (its outcome is in the database); a failed one (a
 * processor bug, not an upstream answer) is kept a day for inspection.
 */
const SEND_JOB_OPTIONS = { attempts: 1, removeOnComplete: true, removeOnFail: { age: 86_400, count: 1_000 } };

/**
 * The dispatcher's side of the BullMQ "send" queue: each send the limiter allowed becomes a job (id = send id,
 * timestamp = reservation) for any worker process, and its verdict comes back on the queue's events. A send whose
 * verdict does not come by its bound (a worker killed mid-send, a Redis flush) resolves without one: the dispatcher
 * then asks the database.
 */
export class SendQueueProducer implements SendTransport {
  readonly #queue: Queue;
  readonly #events: QueueEvents;
  /** Sends queued and not yet finished, by send id: where their answer time and their result go. */
  readonly #pending = new Map<string, { answered: (at: number) => void; finish: (result: SendResult) => void }>();

  readonly #outage: OutageRetry | undefined;

  /** `outage`: a send whose job cannot be added while Redis is away waits for it (D-330), instead of failing at once. */
  constructor(
    options: { producer: Redis; events: Redis; prefix: string; name: string; outage?: OutageRetry },
    private readonly log: Logger,
  ) {
    this.#outage = options.outage;
    this.#queue = new Queue(options.name, { connection: options.producer, prefix: options.prefix });
    this.#events = new QueueEvents(options.name, { connection: options.events, prefix: options.prefix });
    this.#queue.on("error", (error) => log.debug({ error: error.message }, "send queue error"));
    this.#events.on("error", (error) => log.debug({ error: error.message }, "send queue events error"));
    this.#events.on("progress", ({ jobId, data }) => {
      const answered = answeredSchema.safeParse(data);
      if (answered.success) this.#pending.get(jobId)?.answered(answered.data.answeredAt);
    });
    this.#events.on("completed", ({ jobId, returnvalue }) => {
      this.#pending.get(jobId)?.finish(returnvalue as unknown as SendResult);
    });
    // The processor threw: whether it sent is unknown, but it is over by now.
    this.#events.on("failed", ({ jobId }) =>
      this.#pending.get(jobId)?.finish({ verdict: null, answeredAt: Date.now() }),
    );
  }

  ready(): Promise<void> {
    return this.#events.waitUntilReady().then(() => undefined);
  }

  send(send: ReservedSend, answered: (at: number) => void): Promise<SendResult> {
    return new Promise((resolve) => {
      const finish = (result: SendResult) => {
        clearTimeout(timer);
        this.#pending.delete(send.sendId);
        resolve(result);
      };
      const timer = setTimeout(
        () => finish({ verdict: null, answeredAt: send.bound }),
        Math.max(0, send.bound - Date.now() + 50),
      );
      this.#pending.set(send.sendId, { answered, finish });
      const job: SendJob = { submissionId: send.ready.submissionId, credentialId: send.ready.credentialId };
      const add = () =>
        this.#queue.add("send", job, { ...SEND_JOB_OPTIONS, jobId: send.sendId, timestamp: send.reservedAt });
      // Through an outage of Redis the add waits (one try at a time); a job added late is too late for its pick-up,
      // and comes back without a verdict to be dispatched again. Added twice (a try whose answer was lost), it is one
      // job: its id is the send's.
      (this.#outage ? this.#outage.run(add) : add()).catch((error: Error) => {
        // Not queued: nothing was sent.
        if (!(error instanceof OutageRetryClosedError)) {
          this.log.debug({ error: error.message, submissionId: job.submissionId }, "send not queued");
        }
        finish({ verdict: null, answeredAt: Date.now() });
      });
    });
  }

  async close(): Promise<void> {
    for (const { finish } of this.#pending.values()) finish({ verdict: null, answeredAt: Date.now() });
    await this.#events.close();
    await this.#queue.close();
  }
}

/**
 * A worker process's side: takes send jobs, runs the one attempt implementation, and returns its verdict. A job picked
 * up later than `pickupMs` after its reservation is not sent (the dispatcher's slot for it may have closed): it comes
 * back without a verdict and is dispatched again.
 */
export function startSendWorker(options: {
  connection: Redis;
  prefix: string;
  name: string;
  concurrency: number;
  pickupMs: number;
  attempt: SubmissionAttempt;
  log: Logger;
}): Worker<SendJob, SendResult> {
  const worker = new Worker<SendJob, SendResult>(
    options.name,
    async (job: Job<SendJob, SendResult>) => {
      const { submissionId, credentialId } = sendJobSchema.parse(job.data);
      const sendBy = job.timestamp + options.pickupMs;
      if (Date.now() > sendBy) return { verdict: null, answeredAt: Date.now() };
      // The same bound after the claim, which may wait out an outage of the database (D-334).
      return options.attempt.run(
        submissionId,
        (answeredAt) => {
          // Lost, the dispatcher hears the time with the verdict, as it did before.
          job.updateProgress({ answeredAt }).catch(() => undefined);
        },
        sendBy,
        credentialId,
      );
    },
    // As many jobs as the dispatcher hands out at most: sends at the upstream, and those answered whose outcome is
    // still committing (UNSETTLED_PER_IN_FLIGHT, dispatcher.ts).
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency * UNSETTLED_PER_IN_FLIGHT,
    },
  );
  worker.on("error", (error) => options.log.warn({ error: error.message }, "send worker error"));
  return worker;
}
