import { randomFillSync } from "node:crypto";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import type { OTLPExporterNodeConfigBase } from "@opentelemetry/otlp-exporter-base";
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  type IdGenerator,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TracingConfig } from "../../config.js";
import type { Logger } from "../../log.js";
import { packageVersion } from "../../version.js";
import {
  type EncodedSpans,
  type MinuteWarning,
  OtlpBatches,
  type RequestExporter,
  warnEveryMinute,
} from "./otlp-batches.js";
import { OtlpSpanWriter } from "./otlp-protobuf.js";
import { type Tracing, tracingWith } from "./tracing.js";

/** Spans waiting or being sent at most, and how long the first of a batch waits for the rest (D-377). */
const MAX_QUEUE = 16_384;
const DELAY_MS = 200;
/**
 * Spans a request holds at most. JSON's batch processor keeps its spans until the batch is sent: small batches, so a
 * span is garbage before the young generation's next collection (D-377). Protobuf's spans are written as they end and
 * kept as bytes: a request's own cost (its system calls, the socket's work) is most of the export's, so large ones
 * (D-378).
 */
const JSON_BATCH = 256;
const PROTOBUF_BATCH = 2_048;

/** The instrumentation scope every span of the gateway carries. */
export const TRACER_NAME = "partner-gateway";

/**
 * Tracing as the OTEL_* settings ask (config.ts tracingConfig; docs/tracing.md): spans batched and exported over
 * OTLP/HTTP, protobuf or JSON, through the OTLP exporter base's transport (its retries of 429, 502, 503 and 504, its
 * timeout, its limit of concurrent requests). Protobuf is written by the gateway as each span ends (D-378); JSON by the
 * SDK's exporter behind its batch processor. The exporters' packages are loaded only here, so a gateway with tracing
 * off loads none of them. Nothing is registered globally: the context carries the tracing (D-350).
 */
export async function startTracing(config: TracingConfig, log: Logger): Promise<Tracing> {
  const batch = config.protocol === "http/json" ? JSON_BATCH : PROTOBUF_BATCH;
  // A flush of a full queue (at shutdown) exports all its batches at once: the exporter must take that many (D-377).
  const options = {
    url: config.url,
    headers: config.headers,
    timeoutMillis: config.timeoutMs,
    concurrencyLimit: MAX_QUEUE / batch,
  };
  const resource = resourceOf(config);
  let processor: SpanProcessor;
  if (config.protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    processor = new BatchSpanProcessor(new LoggedExporter(new OTLPTraceExporter(options), log), {
      maxQueueSize: MAX_QUEUE,
      maxExportBatchSize: batch,
      scheduledDelayMillis: DELAY_MS,
      exportTimeoutMillis: config.timeoutMs,
    });
  } else {
    const exporter = await protobufExporter(options);
    const header = OtlpSpanWriter.header(resource, SCOPE);
    processor = new OtlpBatches(header, exporter, { batch, delayMs: DELAY_MS, maxQueue: MAX_QUEUE }, log);
  }
  log.info(
    { url: config.url, protocol: config.protocol, sampler: config.sampler.name, service: config.serviceName },
    "tracing on",
  );
  return tracingOver([processor], config, resource);
}

/**
 * The OTLP exporter base over requests the gateway wrote (otlp-protobuf.ts): the transport, retries, timeout and
 * concurrency limit of the SDK's protobuf exporter, whose serializer only hands each request over.
 */
export async function protobufExporter(options: OTLPExporterNodeConfigBase): Promise<RequestExporter> {
  const [{ OTLPExporterBase }, http, { ProtobufTraceSerializer }] = await Promise.all([
    import("@opentelemetry/otlp-exporter-base"),
    import("@opentelemetry/otlp-exporter-base/node-http"),
    import("@opentelemetry/otlp-transformer"),
  ]);
  const delegate = http.createOtlpHttpExportDelegate<EncodedSpans, unknown>(
    http.convertLegacyHttpOptions(options, "TRACES", "v1/traces", { "Content-Type": "application/x-protobuf" }),
    { serializeRequest: (batch) => batch.request, deserializeResponse: ProtobufTraceSerializer.deserializeResponse },
    "otlp_http_span_exporter",
    { name: "span", countItems: (batch) => batch.spans },
    undefined,
  );
  return new OTLPExporterBase(delegate);
}

const SCOPE = { name: TRACER_NAME, version: packageVersion };

function resourceOf(
  config: Pick<TracingConfig, "serviceName"> & Partial<Pick<TracingConfig, "resourceAttributes">>,
): Resource {
  return resourceFromAttributes({
    ...config.resourceAttributes,
    [ATTR_SERVICE_NAME]: config.serviceName,
    [ATTR_SERVICE_VERSION]: packageVersion,
  });
}

/** Tracing over the given span processors (tests read spans back from an in-memory exporter). */
export function tracingOver(
  processors: SpanProcessor[],
  config: Pick<TracingConfig, "serviceName" | "sampler"> & Partial<Pick<TracingConfig, "resourceAttributes">>,
  resource = resourceOf(config),
): Tracing {
  const sink = { resource, scope: SCOPE, processors };
  return tracingWith(sink, samplerOf(config.sampler), new BufferedIdGenerator(), {
    forceFlush: async () => {
      await Promise.all(processors.map((processor) => processor.forceFlush()));
    },
    shutdown: async () => {
      await Promise.all(processors.map((processor) => processor.shutdown()));
    },
  });
}

/**
 * Trace and span ids cut from a buffer of random bytes, refilled every 4,096 trace ids' worth (D-377), where the SDK's
 * generator draws each id's words from Math.random one at a time: one `randomFillSync` for thousands of spans, and
 * each id one hex slice of it. The bytes are the operating system's, so ids are as unguessable as W3C Trace Context
 * asks; an all-zero id, which it calls invalid, is drawn again.
 */
export class BufferedIdGenerator implements IdGenerator {
  readonly #bytes = Buffer.allocUnsafe(16 * 4_096);
  #at = this.#bytes.length;

  generateTraceId(): string {
    return this.#next(16);
  }

  generateSpanId(): string {
    return this.#next(8);
  }

  #next(size: number): string {
    for (;;) {
      if (this.#at + size > this.#bytes.length) {
        randomFillSync(this.#bytes);
        this.#at = 0;
      }
      const start = this.#at;
      this.#at += size;
      for (let i = start; i < this.#at; i++) {
        if (this.#bytes[i] !== 0) return this.#bytes.toString("hex", start, this.#at);
      }
    }
  }
}

/** OTEL_TRACES_SAMPLER and its argument, as OpenTelemetry's specification names them. */
function samplerOf({ name, ratio }: TracingConfig["sampler"]): Sampler {
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** An exporter whose failures are logged (at most one line a minute), not left to OpenTelemetry's silent diag. */
class LoggedExporter implements SpanExporter {
  readonly #warn: MinuteWarning;

  constructor(
    private readonly inner: SpanExporter,
    log: Logger,
  ) {
    this.#warn = warnEveryMinute(log);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS)
        this.#warn("trace export failed", { err: result.error?.message, spans: spans.length });
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
