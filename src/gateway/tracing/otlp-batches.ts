import { TraceFlags } from "@opentelemetry/api";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../../log.js";
import { OtlpSpanWriter, type RequestHeader } from "./otlp-protobuf.js";

/** A batch of spans already written as one OTLP request. */
export interface EncodedSpans {
  readonly request: Buffer;
  readonly spans: number;
}

/** What sends a request: the OTLP exporter base's HTTP transport, with its retries, timeout and concurrency limit. */
export interface RequestExporter {
  export(batch: EncodedSpans, done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

export interface BatchLimits {
  /** Spans a request holds at most. */
  batch: number;
  /** How long the first span of a request waits for the rest, in ms. */
  delayMs: number;
  /** Spans written or being sent at most; past it, a span is dropped (and the drops logged). */
  maxQueue: number;
}

/**
 * The batch span processor of OTLP/HTTP protobuf (D-378): each sampled span is written into the pending request as it
 * ends, so no span outlives its own `end()` (the SDK's batch processor keeps every span until its batch is serialized);
 * a request is sent when it holds `batch` spans or `delayMs` after its first. Failures and drops are logged at most
 * once a minute; an export never stops the gateway.
 */
export class OtlpBatches implements SpanProcessor {
  readonly #writer = new OtlpSpanWriter();
  readonly #sending = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #dropped = 0;
  readonly #warn: MinuteWarning;

  constructor(
    private readonly header: RequestHeader,
    private readonly exporter: RequestExporter,
    private readonly limits: BatchLimits,
    log: Logger,
  ) {
    this.#warn = warnEveryMinute(log);
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#inFlight + this.#writer.spans >= this.limits.maxQueue) {
      this.#dropped++;
      this.#warn("trace spans dropped: the export is behind", { dropped: this.#dropped });
      return;
    }
    this.#writer.span(span);
    if (this.#writer.spans >= this.limits.batch) void this.#send();
    else this.#timer ??= setTimeout(() => void this.#send(), this.limits.delayMs).unref();
  }

  async forceFlush(): Promise<void> {
    void this.#send();
    await Promise.all(this.#sending);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.exporter.shutdown();
  }

  #send(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const spans = this.#writer.spans;
    if (spans === 0) return Promise.resolve();
    const batch = { request: this.#writer.request(this.header), spans };
    this.#inFlight += spans;
    let settled = () => {};
    const sent = new Promise<void>((resolve) => {
      settled = resolve;
    });
    this.#sending.add(sent);
    // The exporter may answer at once (its queue of requests full): `sent` exists before it can.
    this.exporter.export(batch, (result) => {
      this.#inFlight -= spans;
      this.#sending.delete(sent);
      if (result.code !== ExportResultCode.SUCCESS)
        this.#warn("trace export failed", { err: result.error?.message, spans });
      settled();
    });
    return sent;
  }
}

export type MinuteWarning = (message: string, fields: Record<string, unknown>) => void;

/** A warning logged at most once a minute: an export that keeps failing is said once, not per batch. */
export function warnEveryMinute(log: Logger): MinuteWarning {
  let lastLogged = Number.NEGATIVE_INFINITY;
  return (message, fields) => {
    if (Date.now() - lastLogged < 60_000) return;
    lastLogged = Date.now();
    log.warn(fields, message);
  };
}
