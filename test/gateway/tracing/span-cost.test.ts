import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { childSpan, tracingOver } from "../../../src/gateway/tracing/index.js";
import { BufferedIdGenerator } from "../../../src/gateway/tracing/start-tracing.js";

/** D-377: what makes a span cheaper keeps its ids valid and its parent its parent. */
describe("D-377: cheaper spans", () => {
  it("ids cut from the random buffer are W3C ids: lowercase hex of their size, never all zero, never repeated", () => {
    const ids = new BufferedIdGenerator();
    const seen = new Set<string>();
    // Past one buffer's worth (4,096 trace ids), so the buffer is filled again.
    for (let i = 0; i < 10_000; i++) {
      const traceId = ids.generateTraceId();
      const spanId = ids.generateSpanId();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(traceId).not.toMatch(/^0+$/);
      expect(spanId).not.toMatch(/^0+$/);
      seen.add(traceId).add(spanId);
    }
    expect(seen.size).toBe(20_000);
  });

  it("a child started under a live span is in its trace with that span as its parent; a root span starts a trace", () => {
    const exporter = new InMemorySpanExporter();
    const tracing = tracingOver([new SimpleSpanProcessor(exporter)], {
      serviceName: "test",
      sampler: { name: "always_on", ratio: 1 },
    });
    const request = tracing.start("POST /api/inbound/leads", {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": "POST" },
    });
    const mapping = childSpan(tracing, "map payload", request);
    mapping.end();
    const commit = childSpan(tracing, "commit submission", request);
    commit.end();
    request.end();
    const other = tracing.start("another request", { kind: SpanKind.SERVER });
    other.end();

    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.find((s) => s.name === name);
    const { traceId, spanId } = request.spanContext();
    for (const name of ["map payload", "commit submission"]) {
      expect(named(name)?.spanContext().traceId).toBe(traceId);
      expect(named(name)?.parentSpanContext?.spanId).toBe(spanId);
      expect(named(name)?.kind).toBe(SpanKind.INTERNAL);
    }
    expect(named("POST /api/inbound/leads")?.attributes).toEqual({ "http.request.method": "POST" });
    expect(named("POST /api/inbound/leads")?.parentSpanContext).toBeUndefined();
    // Positive control of the parent check: a span started without one is in a trace of its own.
    expect(named("another request")?.parentSpanContext).toBeUndefined();
    expect(named("another request")?.spanContext().traceId).not.toBe(traceId);
  });
});
