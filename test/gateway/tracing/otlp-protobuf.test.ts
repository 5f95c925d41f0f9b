import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childSpan, type Tracing, tracingOver } from "../../../src/gateway/tracing/index.js";
import { OtlpBatches } from "../../../src/gateway/tracing/otlp-batches.js";
import { OtlpSpanWriter } from "../../../src/gateway/tracing/otlp-protobuf.js";
import { protobufExporter, TRACER_NAME } from "../../../src/gateway/tracing/start-tracing.js";
import { packageVersion } from "../../../src/version.js";
import { captureLog } from "../../helpers/log-capture.js";

/**
 * D-378: the gateway's spans and its OTLP protobuf writer. The oracle is the SDK's own serializer
 * (`ProtobufTraceSerializer`, the official exporter's): the same spans must give the same bytes.
 */
const CONFIG = {
  serviceName: "gateway-under-test",
  resourceAttributes: { "deployment.environment.name": "test", "host.name": "büro-1" },
  sampler: { name: "parentbased_always_on" as const, ratio: 1 },
};
const resource = resourceFromAttributes({
  ...CONFIG.resourceAttributes,
  "service.name": CONFIG.serviceName,
  "service.version": packageVersion,
});
const header = OtlpSpanWriter.header(resource, { name: TRACER_NAME, version: packageVersion });

function recorded(): { tracing: Tracing; spans: () => ReadableSpan[] } {
  const memory = new InMemorySpanExporter();
  return {
    tracing: tracingOver([new SimpleSpanProcessor(memory)], CONFIG, resource),
    spans: () => memory.getFinishedSpans(),
  };
}

/** Spans of every shape the writer has a branch for. */
function makeSpans(tracing: Tracing): void {
  const request = tracing.start("POST /api/inbound/leads", {
    kind: SpanKind.SERVER,
    attributes: {
      "http.request.method": "POST",
      "http.route": "/api/inbound/leads",
      "gateway.vendor_key.prefix": "pk_live_abcdef",
      empty: "",
      "non.ascii": "Müller – ☎ 555 👍",
      long: "x".repeat(300),
      count: 3,
      zero: 0,
      negative: -42,
      big: 2 ** 40,
      huge: 2 ** 60,
      ratio: 0.25,
      yes: true,
      no: false,
      strings: ["a", "b", "ç"],
      numbers: [1, 2.5, -3],
      flags: [true, false],
      holes: ["a", null, "c"],
    },
  });
  const mapping = childSpan(tracing, "map payload", request, { "gateway.profile_version.id": "pv_1" });
  mapping.addEvent("compiled", { nodes: 12 });
  mapping.addEvent("no attributes", [1_764_300_000, 5]);
  mapping.end();
  const commit = childSpan(tracing, "commit submission", request);
  commit.setStatus({ code: SpanStatusCode.ERROR, message: "database busy" });
  commit.recordException(new TypeError("not quoted"));
  commit.end();
  request.setAttribute("http.response.status_code", 202);
  // A value that is no attribute value (a caller outside TypeScript's checks) is not kept.
  request.setAttribute("dropped", undefined as unknown as string);
  request.updateName("POST /api/inbound/leads (renamed)");
  request.addLink({ context: mapping.spanContext(), attributes: { why: "linked" } });
  request.end();
  // A remote parent (the vendor's traceparent), sampled and not.
  const remote = tracing.start("POST /hooks/{token}", {
    parent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    kind: SpanKind.SERVER,
  });
  remote.setStatus({ code: SpanStatusCode.OK });
  remote.end();
  tracing.start("unsampled", { parent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00" }).end();
  for (const kind of [SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER])
    tracing.start(`kind ${kind}`, { kind }).end();
  // Longer than the writer's first buffer: it grows.
  const wide = tracing.start("wide");
  for (let i = 0; i < 800; i++) wide.setAttribute(`attribute.${i}`, `value ${i} ${"y".repeat(100)}`);
  wide.end();
}

describe("D-378: the gateway's OTLP protobuf is the SDK serializer's, byte for byte", () => {
  it("every span shape, in one request and again in the next request of the same writer", () => {
    const { tracing, spans } = recorded();
    makeSpans(tracing);
    const all = spans();
    // The unsampled span is not recorded; the rest are, with the remote parent kept remote.
    expect(all.map((s) => s.name)).not.toContain("unsampled");
    expect(all.find((s) => s.name === "POST /hooks/{token}")?.parentSpanContext?.isRemote).toBe(true);
    expect(all).toHaveLength(8);

    const writer = new OtlpSpanWriter();
    for (const span of all) writer.span(span);
    expect(writer.spans).toBe(all.length);
    const ours = writer.request(header);
    const sdks = Buffer.from(ProtobufTraceSerializer.serializeRequest(all) ?? new Uint8Array());
    expect(ours.length).toBeGreaterThan(100_000);
    expect(ours.equals(sdks)).toBe(true);

    // The writer starts over: a second request holds only its own spans.
    expect(writer.spans).toBe(0);
    const tail = all.slice(1, 3);
    for (const span of tail) writer.span(span);
    expect(writer.request(header).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(tail) ?? []))).toBe(true);
  });

  it("the span records what the SDK's would: names, kinds, parents, attributes kept and dropped, times in order", () => {
    const { tracing, spans } = recorded();
    makeSpans(tracing);
    const named = (name: string) => spans().find((s) => s.name === name);
    const request = named("POST /api/inbound/leads (renamed)");
    const commit = named("commit submission");
    expect(request?.kind).toBe(SpanKind.SERVER);
    expect(request?.attributes).toMatchObject({ "http.response.status_code": 202, negative: -42 });
    expect(request?.attributes).not.toHaveProperty("dropped");
    expect(commit?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(commit?.spanContext().traceId).toBe(request?.spanContext().traceId);
    expect(commit?.status).toEqual({ code: SpanStatusCode.ERROR, message: "database busy" });
    expect(commit?.events[0]?.attributes).toEqual({ "exception.type": "TypeError" });
    const [startS, startNs] = request?.startTime ?? [0, 0];
    const [endS, endNs] = request?.endTime ?? [0, 0];
    expect(startS).toBeGreaterThan(1_700_000_000);
    expect(endS * 1e9 + endNs).toBeGreaterThanOrEqual(startS * 1e9 + startNs);
    expect(Math.abs(startS - Date.now() / 1000)).toBeLessThan(60);
    expect(named("map payload")?.events[1]?.time).toEqual([1_764_300_000, 5]);
  });
});

/** An OTLP/HTTP receiver: each request's body kept; answers chosen by the test (200 unless told otherwise). */
async function receiver() {
  const bodies: Buffer[] = [];
  const held: ServerResponse[] = [];
  const state = { answers: [] as number[], hold: false };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks));
      if (state.hold) held.push(res);
      else res.writeHead(state.answers.shift() ?? 200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    bodies,
    state,
    release: () => {
      for (const res of held.splice(0)) res.writeHead(200).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("D-378: spans sent in batches as they end, through the OTLP exporter's transport", () => {
  let otlp: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    otlp = await receiver();
  });
  afterAll(async () => otlp.close());

  async function batches(limits: { batch: number; delayMs: number; maxQueue: number }) {
    const logged = captureLog();
    const exporter = await protobufExporter({ url: otlp.url, timeoutMillis: 5_000, concurrencyLimit: 8 });
    const memory = new InMemorySpanExporter();
    const processor = new OtlpBatches(header, exporter, limits, logged.log);
    const tracing = tracingOver([processor, new SimpleSpanProcessor(memory)], CONFIG, resource);
    return { tracing, memory, logged };
  }
  const oracle = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) ?? []);

  it("a full batch is sent as its last span ends, the rest after the delay; each request is the SDK's bytes", async () => {
    otlp.bodies.length = 0;
    const { tracing, memory } = await batches({ batch: 100, delayMs: 300, maxQueue: 10_000 });
    for (let i = 0; i < 250; i++) tracing.start(`span ${i}`, { attributes: { i } }).end();
    await expect.poll(() => otlp.bodies.length).toBe(2);
    const spans = memory.getFinishedSpans();
    expect(otlp.bodies[0]?.equals(oracle(spans.slice(0, 100)))).toBe(true);
    expect(otlp.bodies[1]?.equals(oracle(spans.slice(100, 200)))).toBe(true);
    // The last fifty wait for the delay, not for a flush.
    await expect.poll(() => otlp.bodies.length, { timeout: 5_000 }).toBe(3);
    expect(otlp.bodies[2]?.equals(oracle(spans.slice(200)))).toBe(true);
    await tracing.shutdown();
  });

  it("an answer OTLP says to retry (503) is retried with the same bytes; a refusal (400) is logged, not thrown", async () => {
    otlp.bodies.length = 0;
    otlp.state.answers = [503];
    const { tracing, memory, logged } = await batches({ batch: 10, delayMs: 50, maxQueue: 1_000 });
    tracing.start("retried").end();
    await tracing.forceFlush();
    expect(otlp.bodies).toHaveLength(2);
    expect(otlp.bodies[1]?.equals(otlp.bodies[0] ?? Buffer.alloc(0))).toBe(true);
    expect(otlp.bodies[1]?.equals(oracle(memory.getFinishedSpans()))).toBe(true);
    expect(logged.lines.filter((l) => l.msg === "trace export failed")).toHaveLength(0);

    otlp.state.answers = [400];
    tracing.start("refused").end();
    await tracing.forceFlush();
    expect(otlp.bodies).toHaveLength(3);
    expect(logged.lines.filter((l) => l.msg === "trace export failed")).toHaveLength(1);
    await tracing.shutdown();
  });

  it("while the collector does not answer, spans past the queue are dropped and logged; once it answers they flow", async () => {
    otlp.bodies.length = 0;
    otlp.state.hold = true;
    const { tracing, logged } = await batches({ batch: 5, delayMs: 20, maxQueue: 20 });
    for (let i = 0; i < 50; i++) tracing.start(`held ${i}`).end();
    // Four requests of five spans fill the queue; the other thirty spans are dropped.
    await expect.poll(() => otlp.bodies.length).toBe(4);
    expect(logged.lines.filter((l) => l.msg === "trace spans dropped: the export is behind")).toHaveLength(1);
    otlp.state.hold = false;
    otlp.release();
    await tracing.forceFlush();
    // Positive control: with the queue drained, the next spans are sent.
    tracing.start("after").end();
    await tracing.forceFlush();
    expect(otlp.bodies).toHaveLength(5);
    expect(otlp.bodies[4]?.includes(Buffer.from("after"))).toBe(true);
    await tracing.shutdown();
  });
});
