import {
  type Attributes,
  type Context,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
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

/** Tracing through an OpenTelemetry tracer (start-tracing.ts builds it from the OTEL_* settings). */
export function tracingWith(
  tracer: Tracer,
  provider: { forceFlush(): Promise<void>; shutdown(): Promise<void> },
): Tracing {
  return {
    enabled: true,
    start(name, options = {}) {
      const kind = options.kind ?? SpanKind.INTERNAL;
      // No options object made per span when there are no attributes: the kind's own, made once (D-377).
      const spanOptions = options.attributes ? { kind, attributes: options.attributes } : KIND_OPTIONS[kind];
      return tracer.startSpan(name, spanOptions, parentContext(options.parent));
    },
    traceparent: (span) => formatTraceparent(span.spanContext()),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

const KIND_OPTIONS: Record<SpanKind, SpanOptions> = {
  [SpanKind.INTERNAL]: { kind: SpanKind.INTERNAL },
  [SpanKind.SERVER]: { kind: SpanKind.SERVER },
  [SpanKind.CLIENT]: { kind: SpanKind.CLIENT },
  [SpanKind.PRODUCER]: { kind: SpanKind.PRODUCER },
  [SpanKind.CONSUMER]: { kind: SpanKind.CONSUMER },
};

function parentContext(parent: SpanParent): Context {
  if (parent === null || parent === undefined) return ROOT_CONTEXT;
  if (typeof parent !== "string")
    return SPAN_KEY_HOLDS ? new SpanParentContext(parent) : trace.setSpan(ROOT_CONTEXT, parent);
  const remote = parseTraceparent(parent);
  return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
}

/**
 * The API's key for a context's span: `createContextKey` is `Symbol.for` of its description, so that copies of the API
 * in one process agree on it. Checked once below; were it ever otherwise, parents go through `trace.setSpan`.
 */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

/**
 * A context holding only a span of this process, the parent of the span started with it (D-377): one small object,
 * where `trace.setSpan(ROOT_CONTEXT, span)` copies a Map and makes three closures for each child span. The tracer only
 * reads it (its span, and the suppression flag, absent); setting or deleting a value makes an ordinary context.
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
