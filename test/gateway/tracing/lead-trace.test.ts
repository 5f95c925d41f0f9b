import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { createVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import { loadProfileDir } from "../../../src/gateway/profiles/index.js";
import {
  createProfile,
  publishProfileVersion,
  saveProfileVersion,
} from "../../../src/gateway/profiles-admin/profiles.js";
import { type Tracing, tracingOver } from "../../../src/gateway/tracing/index.js";
import { createSubscription } from "../../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { postJson } from "../../helpers/gateway.js";
import { redisForTests } from "../../helpers/redis.js";
import { type Receiver, startReceiver } from "../webhooks/support.js";

/**
 * docs/tracing.md (D-350, D-351): one trace per lead, from the vendor's request (§4.2) through each forwarding attempt
 * (§7) and the settlement to each webhook delivery (§6.4), across the API process and a BullMQ worker that share only
 * the database and Redis. Spans are read back from an in-memory exporter; the sandbox's requests through a recording
 * proxy.
 */
const hasRedis = await redisForTests();

/** An HTTP proxy in front of the sandbox that keeps the headers of every request it passes on. */
async function recordingProxy(target: string) {
  const seen: IncomingHttpHeaders[] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const upstream = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
type Proxy = Awaited<ReturnType<typeof recordingProxy>>;

function memoryTracing(exporter: InMemorySpanExporter, serviceName: string): Tracing {
  return tracingOver([new SimpleSpanProcessor(exporter)], {
    serviceName,
    sampler: { name: "parentbased_always_on", ratio: 1 },
  });
}

const serviceOf = (span: ReadableSpan) => span.resource.attributes["service.name"];
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** A lead source's key and a subscription to its outcome, so that a forwarded lead owes one webhook delivery. */
async function leadSource(rig: Rig, receiver: Receiver, name: string) {
  const { ctx } = rig.gateway;
  const company = await rig.addCompany(name, 1);
  const source = await createVendorKey({
    ctx,
    companyId: company.gatewayCompanyId,
    input: {
      name: "marketplace",
      partnerType: "lead_source",
      scopes: ["leads:write"],
      credentialId: company.credentials[0]?.id ?? "",
    },
  });
  await createSubscription({
    ctx,
    companyId: company.gatewayCompanyId,
    input: { vendorKeyId: source.id, url: receiver.url, events: ["submission.forwarded"] },
  });
  return { key: source.key, upstreamKey: company.credentials[0]?.upstreamKey ?? "" };
}

describe.skipIf(!hasRedis)("docs/tracing.md: one trace per lead on the BullMQ driver", () => {
  const exporter = new InMemorySpanExporter();
  const api = memoryTracing(exporter, "gateway-api");
  const worker = memoryTracing(exporter, "gateway-worker");
  let traced: Rig;
  let untraced: Rig;
  let tracedProxy: Proxy | undefined;
  let untracedProxy: Proxy | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    const limits = { perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000 };
    traced = await startRig({
      ...limits,
      driver: "bullmq",
      tracing: { api, worker },
      upstream: async (sandboxUrl) => {
        tracedProxy = await recordingProxy(sandboxUrl);
        return tracedProxy.url;
      },
    });
    untraced = await startRig({
      ...limits,
      driver: "bullmq",
      upstream: async (sandboxUrl) => {
        untracedProxy = await recordingProxy(sandboxUrl);
        return untracedProxy.url;
      },
    });
  }, 60_000);
  afterAll(async () => {
    await traced?.close();
    await untraced?.close();
    await tracedProxy?.close();
    await untracedProxy?.close();
    await receiver?.close();
    await api.shutdown();
    await worker.shutdown();
  });

  /** Posts one lead and waits for its webhook delivery's span: the last of its trace. */
  async function traceOf(rig: Rig, name: string, headers: Record<string, string> = {}) {
    const source = await leadSource(rig, receiver, name);
    const contact = lead();
    const res = await postJson(`${rig.url}/api/inbound/leads`, contact, { "x-api-key": source.key, ...headers });
    expect(res.status).toBe(202);
    const { submissionId } = (await res.json()) as { submissionId: string };
    const intake = await until(() =>
      exporter
        .getFinishedSpans()
        .find((s) => s.kind === SpanKind.SERVER && s.attributes["gateway.submission.id"] === submissionId),
    );
    const spans = await until(() => {
      const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === intake.spanContext().traceId);
      return mine.some((s) => s.name === "webhook submission.forwarded") && mine;
    }, 30_000);
    return { submissionId, intake, spans, source, contact };
  }

  it("the request, its mapping, its commit, the attempt, the settlement and the webhook delivery are one trace across both processes", async () => {
    const { submissionId, intake, spans, source, contact } = await traceOf(traced, "Traced lead");
    const named = (name: string, kind?: SpanKind) => {
      const found = spans.filter((s) => s.name === name && (kind === undefined || s.kind === kind));
      expect(found, name).toHaveLength(1);
      return found[0] as ReadableSpan;
    };
    // The request: a trace of its own (no vendor traceparent), in the API process.
    expect(intake.name).toBe("POST /api/inbound/leads");
    expect(parentOf(intake)).toBeUndefined();
    expect(serviceOf(intake)).toBe("gateway-api");
    expect(intake.attributes).toMatchObject({
      "http.response.status_code": 202,
      "gateway.vendor_key.prefix": source.key.slice(0, 14),
    });
    const mapping = named("map payload");
    const commit = named("commit submission");
    expect([parentOf(mapping), parentOf(commit)]).toEqual([intake.spanContext().spanId, intake.spanContext().spanId]);
    // The attempt, in the worker, continues the trace the submission's row carries.
    const attempt = named("POST /api/inbound/leads", SpanKind.CLIENT);
    expect(serviceOf(attempt)).toBe("gateway-worker");
    expect(parentOf(attempt)).toBe(intake.spanContext().spanId);
    expect(attempt.attributes).toMatchObject({
      "gateway.submission.id": submissionId,
      "gateway.attempt": 1,
      "http.response.status_code": 201,
    });
    const settlement = named("settle submission");
    expect(serviceOf(settlement)).toBe("gateway-worker");
    expect(parentOf(settlement)).toBe(attempt.spanContext().spanId);
    expect(settlement.attributes["gateway.submission.status"]).toBe("forwarded");
    // The delivery, sent by the API process's webhook dispatcher, continues the trace its event carries.
    const delivery = named("webhook submission.forwarded");
    expect(serviceOf(delivery)).toBe("gateway-api");
    expect(parentOf(delivery)).toBe(settlement.spanContext().spanId);
    expect(delivery.attributes["http.response.status_code"]).toBe(200);
    expect(delivery.attributes["server.address"]).toBe(new URL(receiver.url).host);

    // The platform got the attempt span as its parent (W3C traceparent).
    const sent = tracedProxy?.seen.filter((h) => h["x-request-id"] === submissionId) ?? [];
    expect(sent.map((h) => h.traceparent)).toEqual([
      `00-${attempt.spanContext().traceId}-${attempt.spanContext().spanId}-01`,
    ]);

    // Nothing secret or personal in any span: no key (only its first 14 characters), no upstream key, no contact.
    const attributes = JSON.stringify(spans.map((s) => s.attributes));
    for (const secret of [source.key, source.key.slice(0, 15), source.upstreamKey, contact.email, contact.fullName]) {
      expect(attributes).not.toContain(secret);
    }
  }, 60_000);

  it("a vendor's own traceparent is the request's parent, and the lead's spans stay in the vendor's trace", async () => {
    const vendorTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const vendorSpan = "00f067aa0ba902b7";
    const { intake, spans } = await traceOf(traced, "Vendor-traced lead", {
      traceparent: `00-${vendorTrace}-${vendorSpan}-01`,
    });
    expect(intake.spanContext().traceId).toBe(vendorTrace);
    expect(parentOf(intake)).toBe(vendorSpan);
    expect(new Set(spans.map((s) => s.name))).toEqual(
      new Set([
        "POST /api/inbound/leads",
        "map payload",
        "commit submission",
        "settle submission",
        "webhook submission.forwarded",
      ]),
    );
    expect(spans).toHaveLength(6);
  }, 60_000);

  it("a hook URL's request is the root of its lead's trace, named by its route, never by its token", async () => {
    const { ctx } = traced.gateway;
    const company = await traced.addCompany("Hooked lead", 1);
    const loaded = await loadProfileDir("profiles/homequote-marketplace");
    const profile = await createProfile({
      ctx,
      companyId: company.gatewayCompanyId,
      input: { name: loaded.name, kind: loaded.kind },
    });
    const saved = await saveProfileVersion({
      ctx,
      companyId: company.gatewayCompanyId,
      profileId: profile.id,
      input: { expression: loaded.expression, samples: loaded.samples },
    });
    const version = await publishProfileVersion({
      ctx,
      companyId: company.gatewayCompanyId,
      versionId: saved.version.id,
    });
    const connection = await createConnection({
      ctx,
      companyId: company.gatewayCompanyId,
      input: {
        name: "marketplace hook",
        secrets: {},
        credentialId: company.credentials[0]?.id ?? "",
        profileVersionId: version.id,
        settings: { bodyType: "json", proof: { type: "none" } },
      },
    });
    const token = new URL(connection.hookUrl).pathname.slice("/hooks/".length);
    const sample = JSON.parse(readFileSync("profiles/homequote-marketplace/samples/01-complete-lead.json", "utf8")) as {
      payload: unknown;
    };
    const vendorTrace = "0af7651916cd43dd8448eb211c80319c";
    const answer = await fetch(connection.hookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${vendorTrace}-b7ad6b7169203331-01` },
      body: JSON.stringify(sample.payload),
    });
    expect(answer.status).toBe(200);

    const spans = await until(() => {
      const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === vendorTrace);
      // The attempt's span ends after the settlement's (which ends inside the attempt's commit): both are waited for.
      return mine.some((s) => s.name === "settle submission") && mine.some((s) => s.kind === SpanKind.CLIENT) && mine;
    }, 30_000);
    const hook = spans.find((s) => s.kind === SpanKind.SERVER);
    expect(hook?.name).toBe("POST /hooks/{token}");
    expect(parentOf(hook as ReadableSpan)).toBe("b7ad6b7169203331");
    expect(hook?.attributes).toMatchObject({
      "gateway.connection.id": connection.id,
      "http.response.status_code": 200,
    });
    const attempt = spans.find((s) => s.kind === SpanKind.CLIENT);
    expect(parentOf(attempt as ReadableSpan)).toBe(hook?.spanContext().spanId);
    expect(spans.filter((s) => s.name === "map payload" || s.name === "commit submission")).toHaveLength(2);
    // The token is a credential: in no span's name or attribute.
    expect(JSON.stringify(spans.map((s) => [s.name, s.attributes]))).not.toContain(token.slice(0, 16));
  }, 60_000);

  it("off by default: a gateway given no tracing records no span, stores no trace and sends no traceparent", async () => {
    // Positive control: the traced gateway's lead, through the same kind of proxy, has all three.
    const tracedLead = await traceOf(traced, "Control lead");
    const tracedRow = await traced.gateway.ctx.submissions.get(tracedLead.submissionId);
    expect(tracedRow?.traceParent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(tracedProxy?.seen.find((h) => h["x-request-id"] === tracedLead.submissionId)?.traceparent).toBeDefined();

    const spansBefore = exporter.getFinishedSpans().length;
    const source = await leadSource(untraced, receiver, "Untraced lead");
    const res = await postJson(`${untraced.url}/api/inbound/leads`, lead(), { "x-api-key": source.key });
    const { submissionId } = (await res.json()) as { submissionId: string };
    const row = await until(async () => {
      const found = await untraced.gateway.ctx.submissions.get(submissionId);
      return found?.status === "forwarded" && found;
    }, 30_000);
    await until(() => receiver.bodies().some((b) => JSON.stringify(b).includes(submissionId)), 30_000);
    expect(untraced.gateway.ctx.tracing.enabled).toBe(false);
    expect(row.traceParent).toBeNull();
    const sent = untracedProxy?.seen.filter((h) => h["x-request-id"] === submissionId) ?? [];
    expect(sent).toHaveLength(1);
    expect(sent[0]?.traceparent).toBeUndefined();
    expect(exporter.getFinishedSpans().length).toBe(spansBefore);
  }, 90_000);
});
