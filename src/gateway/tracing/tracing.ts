import {
  type Attributes,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
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
      return tracer.startSpan(
        name,
        { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
        parentContext(options.parent),
      );
    },
    traceparent: (span) => formatTraceparent(span.spanContext()),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

function parentContext(parent: SpanParent) {
  if (parent === null || parent === undefined) return ROOT_CONTEXT;
  if (typeof parent !== "string") return trace.setSpan(ROOT_CONTEXT, parent);
  const remote = parseTraceparent(parent);
  return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
}

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
