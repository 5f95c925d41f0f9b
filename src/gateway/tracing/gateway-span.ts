import {
  type Attributes,
  type AttributeValue,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
} from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanProcessor, TimedEvent } from "@opentelemetry/sdk-trace-base";

/** What every span of one tracing shares: its resource and scope, and where its spans go once ended. */
export interface SpanSink {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly processors: readonly SpanProcessor[];
}

const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NONE: never[] = Object.freeze([]) as never[];

/** Milliseconds since the epoch at `performance.now()`'s zero: a span's times are this plus the monotonic clock. */
const ORIGIN_MS = performance.timeOrigin;

/**
 * A span of the gateway (D-378): what OpenTelemetry's `Span` API lets a caller do, recorded as the SDK's
 * `ReadableSpan` reads it, for the SDK's span processors and exporters and for the gateway's own OTLP encoder
 * (otlp-protobuf.ts). It is the SDK's `SpanImpl` less what the gateway never uses: span limits (its spans carry a
 * handful of attributes), `onStart` hooks (no processor of the gateway has one), and a second clock read per time.
 */
export class GatewaySpan implements Span, ReadableSpan {
  readonly attributes: Attributes = {};
  status: SpanStatus = UNSET;
  events: TimedEvent[] = NONE;
  links: Link[] = NONE;
  ended = false;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  /** When it started and ended, in milliseconds from `performance.timeOrigin` (performance.now()'s clock). */
  readonly #start: number;
  #end = -1;

  readonly #context: SpanContext;

  constructor(
    private readonly sink: SpanSink,
    context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    public name: string,
    readonly kind: SpanKind,
    attributes: Attributes | undefined,
  ) {
    this.#context = context;
    this.#start = performance.now();
    if (attributes) this.setAttributes(attributes);
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  /** The W3C `traceparent` naming this span as the parent (its ids are valid: made by this process). */
  traceparent(): string {
    const { traceId, spanId, traceFlags } = this.#context;
    return `00-${traceId}-${spanId}-${traceFlags & TraceFlags.SAMPLED ? "01" : "00"}`;
  }

  get resource(): Resource {
    return this.sink.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.sink.scope;
  }

  get startTime(): HrTime {
    return hrTimeAt(this.#start);
  }

  get endTime(): HrTime {
    return this.#end < 0 ? [0, 0] : hrTimeAt(this.#end);
  }

  get duration(): HrTime {
    const ms = this.#end < 0 ? 0 : this.#end - this.#start;
    const seconds = Math.trunc(ms / 1000);
    return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    // As the SDK: a value that is no attribute value (null, undefined) is not kept, and an ended span is not changed.
    if (value !== undefined && value !== null && !this.ended && key.length > 0) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const [attributes, at] = isTimeInput(attributesOrTime) ? [{}, attributesOrTime] : [attributesOrTime ?? {}, time];
    if (this.events === NONE) this.events = [];
    this.events.push({
      name,
      attributes,
      time: at === undefined ? hrTimeAt(performance.now()) : hrTimeOf(at),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links === NONE) this.links = [];
    this.links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended || this.status.code === SpanStatusCode.OK) return this;
    // An error's description is kept as the caller gave it; the gateway never gives one (D-352: no error messages).
    this.status = status.code === SpanStatusCode.ERROR ? { ...status } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  /** Ends the span and hands it to the processors once; an end time given is taken as it is. */
  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    this.#end = endTime === undefined ? performance.now() : msOf(endTime) - ORIGIN_MS;
    if (this.#end < this.#start) this.#end = this.#start;
    for (const processor of this.sink.processors) processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** The exception's kind only (D-352: a span never carries an error's message, which may quote a payload). */
  recordException(exception: unknown, time?: TimeInput): void {
    const type =
      exception instanceof Error ? exception.name : typeof exception === "string" ? "error" : String(exception);
    this.addEvent("exception", { "exception.type": type }, time);
  }
}

/** `[seconds, nanoseconds]` since the epoch of a time on `performance.now()`'s clock. */
function hrTimeAt(ms: number): HrTime {
  const epochMs = ORIGIN_MS + ms;
  const seconds = Math.trunc(epochMs / 1000);
  const nanos = Math.round((epochMs - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

function hrTimeOf(time: TimeInput): HrTime {
  return Array.isArray(time) ? [time[0], time[1]] : hrTimeAt(msOf(time) - ORIGIN_MS);
}

/** Milliseconds since the epoch of an API time: a Date, milliseconds since the epoch, or an HrTime. */
function msOf(time: TimeInput): number {
  if (time instanceof Date) return time.getTime();
  // As the API reads a number: below the time origin, a reading of performance.now(); else milliseconds since the epoch.
  if (typeof time === "number") return time < ORIGIN_MS ? ORIGIN_MS + time : time;
  return time[0] * 1000 + time[1] / 1e6;
}

function isTimeInput(value: Attributes | TimeInput | undefined): value is TimeInput {
  return typeof value === "number" || value instanceof Date || Array.isArray(value);
}

/** A span context of this process: sampled, or not when the sampler said to record without sampling. */
export function localContext(traceId: string, spanId: string, sampled: boolean): SpanContext {
  return { traceId, spanId, traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE };
}
