import { Writable } from "node:stream";
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { newApp } from "../../src/http/app.js";
import { ApiError } from "../../src/http/errors.js";
import { healthRoutes } from "../../src/http/health.js";
import { jsonBody } from "../../src/http/json-body.js";
import { HttpMetrics } from "../../src/http/metrics.js";
import { listen } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: createLogger({ destination, level: "info" }) };
}

function buildApp() {
  const { lines, log } = capture();
  const metrics = new HttpMetrics("test");
  const app = newApp({ log, metrics, responseHeaders: { "x-svc-api-version": "2026-08-26" } });
  app.route("/", healthRoutes({ metrics, checks: { db: () => {} } }));
  app.post("/echo", jsonBody({ maxBytes: 64 }), (c) => c.json({ body: c.get("body") as unknown }));
  app.post("/typed", jsonBody(), async (c) => {
    const parsed = z.object({ email: z.email() }).safeParse(c.get("body"));
    if (!parsed.success) throw new ApiError("bad_request", "email: invalid", { details: { field: "email" } });
    return c.json(parsed.data);
  });
  app.get("/boom", () => {
    throw new Error("kaboom");
  });
  app.get("/leak", () => {
    throw Object.assign(new Error("upstream refused"), { secret: "s3cr3t-value", token: "t0ken-value" });
  });
  return { app, lines, metrics };
}

describe("app factory: §7 error contract", () => {
  it("answers an unknown route with 404 {error} and an x-request-id", async () => {
    const { app } = buildApp();
    const res = await app.request("/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "not found" });
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it("keeps a sane incoming x-request-id and replaces an unsafe one", async () => {
    const { app } = buildApp();
    const kept = await app.request("/health/live", { headers: { "x-request-id": "abc-123.def" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123.def");
    const replaced = await app.request("/health/live", { headers: { "x-request-id": "bad id\u0001" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("sets the configured headers on every response, errors included (§9.1)", async () => {
    const { app } = buildApp();
    expect((await app.request("/health/live")).headers.get("x-svc-api-version")).toBe("2026-08-26");
    expect((await app.request("/nope")).headers.get("x-svc-api-version")).toBe("2026-08-26");
  });

  it("over a real socket, sets them once on every kind of response: built by the context, its own, an error", async () => {
    const { app } = buildApp();
    app.get("/own", () => new Response("plain", { headers: { "content-type": "text/plain" } }));
    app.get("/own-id", () => new Response("plain", { headers: { "x-request-id": "req_handler" } }));
    const server = await listen(app, { host: "127.0.0.1", port: 0 });
    try {
      for (const [path, status] of [
        ["/health/live", 200],
        ["/own", 200],
        ["/nope", 404],
        ["/boom", 500],
      ] as const) {
        const res = await fetch(`${server.url}${path}`, { headers: { "x-request-id": "abc-123" } });
        expect(res.status, path).toBe(status);
        expect(res.headers.get("x-request-id"), path).toBe("abc-123");
        expect(res.headers.get("x-svc-api-version"), path).toBe("2026-08-26");
      }
      // A handler's own value wins, and is not doubled.
      expect((await fetch(`${server.url}/own-id`)).headers.get("x-request-id")).toBe("req_handler");
    } finally {
      await server.close();
    }
  });

  it("hides the cause of a 500 from the body and logs it once on the request line", async () => {
    const { app, lines } = buildApp();
    const res = await app.request("/boom");
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal error" });
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain("kaboom");
  });

  it("redacts secrets an error carries on the 5xx request line (§5.9)", async () => {
    const { app, lines } = buildApp();
    expect((await app.request("/leak")).status).toBe(500);
    const text = JSON.stringify(lines);
    expect(text).toContain("upstream refused");
    expect(text).not.toContain("s3cr3t-value");
    expect(text).not.toContain("t0ken-value");
    expect(text).toContain("[redacted]");
  });

  it("maps ApiError to its status with additive fields", async () => {
    const { app } = buildApp();
    const res = await app.request("/typed", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nope" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "email: invalid", field: "email" });
  });
});

describe("JSON bodies: §8 1 MB limit, content type, malformed JSON", () => {
  const post = (app: ReturnType<typeof buildApp>["app"], body: string, type = "application/json") =>
    app.request("/echo", { method: "POST", headers: { "content-type": type }, body });

  it("accepts JSON within the limit", async () => {
    const { app } = buildApp();
    const res = await post(app, JSON.stringify({ a: 1 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { a: 1 } });
  });

  it("answers 413 over the limit, also without a declared length", async () => {
    const { app } = buildApp();
    expect((await post(app, JSON.stringify({ a: "x".repeat(100) }))).status).toBe(413);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"a":"${"x".repeat(100)}"}`));
        controller.close();
      },
    });
    const res = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    expect(res.status).toBe(413);
  });

  it("answers 415 to a body that is not JSON", async () => {
    const { app } = buildApp();
    const res = await post(app, "a=1", "application/x-www-form-urlencoded");
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: string }).error).toMatch(/application\/json/);
  });

  it("answers 400 to malformed JSON", async () => {
    const { app } = buildApp();
    const res = await post(app, "{not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "request body is not valid JSON" });
  });
});

describe("health, version and metrics", () => {
  it("reports liveness, readiness and the API version date", async () => {
    const { app } = buildApp();
    expect(await (await app.request("/health/live")).json()).toEqual({ status: "ok" });
    expect(await (await app.request("/health/ready")).json()).toEqual({ status: "ok", checks: { db: "ok" } });
    const version = (await (await app.request("/version")).json()) as { apiVersion: string };
    expect(version.apiVersion).toBe("2026-08-26");
  });

  it("answers 503 when a readiness check fails", async () => {
    const { log } = capture();
    const app = newApp({ log });
    app.route(
      "/",
      healthRoutes({
        checks: {
          redis: () => {
            throw new Error("unreachable");
          },
        },
      }),
    );
    const res = await app.request("/health/ready");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "unavailable", checks: { redis: "unreachable" } });
  });

  it("counts requests by route pattern and status in Prometheus text", async () => {
    const { app } = buildApp();
    await app.request("/health/live");
    await app.request("/nope");
    const text = await (await app.request("/metrics")).text();
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/health\/live"[^}]*status="200"[^}]*\} 1/);
    expect(text).toMatch(/http_request_duration_seconds_bucket/);
  });

  it("logs one line per request with the route and status", async () => {
    const { app, lines } = buildApp();
    await app.request("/health/live");
    const requestLines = lines.filter((l) => l.msg === "request");
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({ method: "GET", route: "/health/live", status: 200 });
  });
});
