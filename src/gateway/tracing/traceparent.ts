import { isSpanContextValid, type SpanContext, TraceFlags } from "@opentelemetry/api";

/**
 * W3C Trace Context's `traceparent` (version 00): `00-<trace id>-<parent span id>-<flags>`. A later version is read by
 * its first four fields, as the recommendation asks; version ff, zero ids and anything else malformed are no parent.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The remote span context a `traceparent` names, or undefined when it names none (a new trace starts then). */
export function parseTraceparent(header: string | null | undefined): SpanContext | undefined {
  if (!header) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(context) ? context : undefined;
}

/** The `traceparent` that names `context` as the parent, or null for an invalid context (tracing off). */
export function formatTraceparent(context: SpanContext): string | null {
  if (!isSpanContextValid(context)) return null;
  const sampled = (context.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
  return `00-${context.traceId}-${context.spanId}-${sampled ? "01" : "00"}`;
}
