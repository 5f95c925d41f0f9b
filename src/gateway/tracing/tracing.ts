import {
  type Attributes,
  type Context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { type IdGenerator, type Sampler, SamplingDecision } from "@opentelemetry/sdk-trace-base";
import { GatewaySpan, localContext, type SpanSink } from "./gateway-span.js";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";

/**
 * Where a span hangs (docs/tracing.md): a span of this process, a `traceparent` carried by a row or a request (the
 * lead's trace, continued in another process), or nothing (a new trace).
 */
export type SpanParent = Span | string | null | undefined;

export interface SpanStart {
  parent?: SpanParent;
  kind?: SpanKind;
  attributes?: Attributes;
}

/**
 * The gateway's tracing (D-350): built once at start and carried by the context, never a global. Off, `start` hands
 * back one shared span that records nothing and `traceparent` is null, so a lead costs no more than without tracing.
 */
export interface Tracing {
  readonly enabled: boolean;
  start(name: string, options?: SpanStart): Span;
  /** The `traceparent` naming `span` as a parent: stored with a submission or event, sent upstream. Null when off. */
  traceparent(span: Span): string | null;
  /** Exports what is buffered (tests, before a process exits). */
  forceFlush(): Promise<void>;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

const NOTHING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Tracing off: nothing started, nothing recorded, nothing exported. */
export const NO_TRACING: Tracing = {
  enabled: false,
  start: () => NOTHING,
  traceparent: () => null,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

/**
 * A span under `parent`, or none when there is no parent (tracing off, or a caller outside a traced request): a step
 * of a lead's trace is never a trace of its own.
 */
export function childSpan(tracing: Tracing, name: string, parent: Span | undefined, attributes?: Attributes): Span {
  if (parent === undefined) return NOTHING;
  return tracing.start(name, attributes ? { parent, attributes } : { parent });
}

/**
 * Tracing that starts the gateway's own spans (D-378): the sampler decides as the SDK's tracer would (OTEL_TRACES_SAMPLER),
 * a child is in its parent's trace, and each span, ended, goes to the sink's processors.
 */
export function tracingWith(
  sink: SpanSink,
  sampler: Sampler,
  ids: IdGenerator,
  provider: { forceFlush(): Promise<void>; shutdown(): Promise<void> },
): Tracing {
  return {
    enabled: true,
    start(name, options = {}) {
      const kind = options.kind ?? SpanKind.INTERNAL;
      const parent = parentOf(options.parent);
      const traceId = parent ? parent.spanContext().traceId : ids.generateTraceId();
      const decision = sampler.shouldSample(
        parent ? parentContext(parent) : ROOT_CONTEXT,
        traceId,
        name,
        kind,
        options.attributes ?? NO_ATTRIBUTES,
        [],
      );
      const spanId = ids.generateSpanId();
      if (decision.decision === SamplingDecision.NOT_RECORD)
        return trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.NONE });
      const context = localContext(traceId, spanId, decision.decision === SamplingDecision.RECORD_AND_SAMPLED);
      const span = new GatewaySpan(sink, context, parent?.spanContext(), name, kind, options.attributes);
      if (decision.attributes) span.setAttributes(decision.attributes);
      return span;
    },
    traceparent: (span) => (span instanceof GatewaySpan ? span.traceparent() : formatTraceparent(span.spanContext())),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

const NO_ATTRIBUTES: Attributes = Object.freeze({});

/** The span a new span hangs under: one of this process, or a remote one named by a `traceparent`; else none. */
function parentOf(parent: SpanParent): Span | undefined {
  if (parent === null || parent === undefined) return undefined;
  // The gateway's own spans are valid by construction; another span (tracing off's, say) is checked.
  if (parent instanceof GatewaySpan) return parent;
  if (typeof parent !== "string") return isSpanContextValid(parent.spanContext()) ? parent : undefined;
  const remote = parseTraceparent(parent);
  return remote ? trace.wrapSpanContext(remote) : undefined;
}

/** The context the sampler reads a parent from (a parent-based sampler follows the parent's decision). */
function parentContext(parent: Span): Context {
  return SPAN_KEY_HOLDS ? new SpanParentContext(parent) : trace.setSpan(ROOT_CONTEXT, parent);
}

/**
 * The API's key for a context's span: `createContextKey` is `Symbol.for` of its description, so that copies of the API
 * in one process agree on it. Checked once below; were it ever otherwise, parents go through `trace.setSpan`.
 */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

/**
 * A context holding only the parent of the span being started, for the sampler (D-377): one small object, where
 * `trace.setSpan(ROOT_CONTEXT, span)` copies a Map and makes three closures for each child span. Samplers only read it
 * (its span); setting or deleting a value makes an ordinary context.
 */
class SpanParentContext implements Context {
  constructor(private readonly span: Span) {}

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.span : undefined;
  }

  setValue(key: symbol, value: unknown): Context {
    return trace.setSpan(ROOT_CONTEXT, this.span).setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return trace.setSpan(ROOT_CONTEXT, this.span).deleteValue(key);
  }
}

const SPAN_KEY_HOLDS = trace.getSpan(new SpanParentContext(NOTHING)) === NOTHING;

/**
 * Ends `span` as failed: the error's kind only (its class, or an API error's code), never its message, which may
 * quote a payload (docs/tracing.md, "What spans carry").
 */
export function endFailed(span: Span, error: unknown): void {
  const kind =
    error && typeof error === "object" && "code" in error && typeof error.code === "string"
      ? error.code
      : error instanceof Error
        ? error.name
        : "error";
  span.setAttribute("error.type", kind);
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Runs `work` inside `span`, ended when `work` settles (failed when it throws). */
export async function inSpanOf<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    span.end();
    return result;
  } catch (error) {
    endFailed(span, error);
    throw error;
  }
}

/** Runs `work` inside a span named `name`, ended when `work` settles (failed when it throws). */
export async function inSpan<T>(
  tracing: Tracing,
  name: string,
  options: SpanStart,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracing.start(name, options);
  try {
    const result = await work(span);
    span.end();
    return result;
  } catch (error) {
    endFailed(span, error);
    throw error;
  }
}
