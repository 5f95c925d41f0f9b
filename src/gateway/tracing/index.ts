export { startTracing, TRACER_NAME, tracingOver } from "./start-tracing.js";
export { formatTraceparent, parseTraceparent } from "./traceparent.js";
export {
  childSpan,
  endFailed,
  inSpan,
  inSpanOf,
  NO_TRACING,
  type SpanParent,
  type SpanStart,
  type Tracing,
} from "./tracing.js";
