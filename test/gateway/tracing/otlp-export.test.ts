import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv, tracingConfig } from "../../../src/config.js";
import { parseTraceparent, startTracing } from "../../../src/gateway/tracing/index.js";
import { createLogger } from "../../../src/log.js";

/**
 * docs/tracing.md (D-350): the standard OTEL_* settings, read once by the config module, and spans exported over
 * OTLP/HTTP as they choose — protobuf or JSON — to a real HTTP receiver on loopback.
 */

interface Export {
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function otlpReceiver() {
  const received: Export[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      // An empty ExportTraceServiceResponse: all accepted.
      const json = req.headers["content-type"] === "application/json";
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      res.end(json ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("docs/tracing.md: the OTEL_* settings", () => {
  it("tracing is off by default; an endpoint or OTEL_TRACES_EXPORTER=otlp turns it on", () => {
    expect(tracingConfig(parseEnv({}), "partner-gateway")).toBeUndefined();
    // Positive control: the same environment with an endpoint.
    expect(
      tracingConfig(parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }), "partner-gateway"),
    ).toMatchObject({ url: "http://collector:4318/v1/traces", protocol: "http/protobuf" });
    expect(tracingConfig(parseEnv({ OTEL_TRACES_EXPORTER: "otlp" }), "partner-gateway")?.url).toBe(
      "http://localhost:4318/v1/traces",
    );
    // Off whatever else is set.
    for (const off of [{ OTEL_SDK_DISABLED: "true" }, { OTEL_TRACES_EXPORTER: "none" }]) {
      expect(
        tracingConfig(parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", ...off }), "partner-gateway"),
      ).toBeUndefined();
    }
  });

  it("the traces endpoint is taken as it is; protocol, headers, service name and sampler as OpenTelemetry names them", () => {
    const config = tracingConfig(
      parseEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com/otlp/spans",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "x-team=leads, authorization=Bearer%20abc",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=gateway",
        OTEL_SERVICE_NAME: "gateway-eu",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
      }),
      "partner-gateway",
    );
    expect(config).toEqual({
      url: "https://traces.example.com/otlp/spans",
      protocol: "http/json",
      headers: { "x-team": "gateway", authorization: "Bearer abc" },
      timeoutMs: 10_000,
      serviceName: "gateway-eu",
      resourceAttributes: { "deployment.environment.name": "prod" },
      sampler: { name: "parentbased_traceidratio", ratio: 0.25 },
    });
  });

  it("a protocol that is not built in, or a malformed list, stops start-up naming the variable", () => {
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => parseEnv({ OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_HEADERS: "=nameless" })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(() => parseEnv({ OTEL_TRACES_SAMPLER_ARG: "2" })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});

describe("docs/tracing.md: spans exported over OTLP/HTTP", () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  beforeAll(async () => {
    receiver = await otlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  for (const [protocol, contentType] of [
    ["http/protobuf", "application/x-protobuf"],
    ["http/json", "application/json"],
  ] as const) {
    it(`${protocol}: POST /v1/traces as ${contentType}, with the configured headers and the service's name`, async () => {
      const config = tracingConfig(
        parseEnv({
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k%3D1",
          OTEL_SERVICE_NAME: `svc-${protocol.replace("/", "-")}`,
        }),
        "partner-gateway",
      );
      if (!config) throw new Error("tracing should be on");
      const tracing = await startTracing(config, createLogger({ level: "silent" }));
      const before = receiver.received.length;
      const span = tracing.start("export probe", { attributes: { "gateway.submission.id": "sub_probe" } });
      const traceparent = tracing.traceparent(span);
      span.end();
      await tracing.shutdown();

      const sent = receiver.received.slice(before);
      expect(sent).toHaveLength(1);
      const [request] = sent;
      expect(request?.path).toBe("/v1/traces");
      expect(request?.headers["content-type"]).toBe(contentType);
      expect(request?.headers["x-collector-key"]).toBe("k=1");
      const body = request?.body ?? Buffer.alloc(0);
      // The span's name, its attribute and the resource's service name are in the body, whichever the encoding.
      for (const text of ["export probe", "sub_probe", `svc-${protocol.replace("/", "-")}`]) {
        expect(body.includes(Buffer.from(text))).toBe(true);
      }
      const traceId = parseTraceparent(traceparent)?.traceId ?? "";
      if (protocol === "http/json") {
        const decoded = JSON.parse(body.toString("utf8")) as {
          resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[];
        };
        expect(decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0]).toMatchObject({ traceId, name: "export probe" });
      } else {
        expect(body.includes(Buffer.from(traceId, "hex"))).toBe(true);
      }
    });
  }
});
