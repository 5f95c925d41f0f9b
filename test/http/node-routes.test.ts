import { afterEach, describe, expect, it } from "vitest";
import { newApp } from "../../src/http/app.js";
import { ApiError } from "../../src/http/errors.js";
import { readIncoming } from "../../src/http/json-body.js";
import { HttpMetrics } from "../../src/http/metrics.js";
import { listen, type RunningServer } from "../../src/http/server.js";
import { captureLog } from "../helpers/log-capture.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An app with a Node route at POST /fast (echoing its body, or failing as the body says) and Hono routes beside it. */
async function start() {
  const { log, lines } = captureLog();
  const metrics = new HttpMetrics("test");
  const app = newApp({ log, metrics, responseHeaders: { "x-svc-api-version": "2026-08-26" } });
  app.nodeRoutes.add({
    method: "POST",
    path: "/fast",
    async handle(incoming, request) {
      request.key = "svc_test_abcde";
      const body = JSON.parse(Buffer.from(await readIncoming(incoming)).toString("utf8")) as { fail?: string };
      if (body.fail === "api") {
        throw new ApiError("rate_limited", "slow down", { details: { field: "x" }, headers: { "retry-after": "2" } });
      }
      if (body.fail === "crash") throw new Error("kaboom");
      if (body.fail === "unwritable") return { status: 200, body: { count: 1n } };
      return { status: 202, body: { echoed: body }, headers: { location: "/fast/1" } };
    },
  });
  app.post("/fast/hono", (c) => c.json({ via: "hono" }));
  app.get("/fast", (c) => c.json({ via: "hono" }));
  app.route("/", (await import("../../src/http/health.js")).healthRoutes({ metrics, checks: {} }));
  server = await listen(app, { host: "127.0.0.1", port: 0 });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server?.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  return { url: server.url, post, lines };
}

describe("Node routes: answered ahead of Hono, under the app's contract (§7)", () => {
  it("answers its method and path (a query string too) with JSON, the handler's headers and the app's", async () => {
    const { post } = await start();
    for (const path of ["/fast", "/fast?debug=1"]) {
      const res = await post(path, { a: 1 }, { "x-request-id": "abc-123" });
      expect(res.status, path).toBe(202);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("location")).toBe("/fast/1");
      expect(res.headers.get("x-request-id")).toBe("abc-123");
      expect(res.headers.get("x-svc-api-version")).toBe("2026-08-26");
      expect(await res.json()).toEqual({ echoed: { a: 1 } });
    }
  });

  it("gives a request without a sane x-request-id one of its own", async () => {
    const { post } = await start();
    const res = await post("/fast", {}, { "x-request-id": "not sane!" });
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it("leaves every other method and path to Hono", async () => {
    const { url, post } = await start();
    expect(await (await fetch(`${url}/fast`)).json()).toEqual({ via: "hono" });
    expect(await (await post("/fast/hono", {})).json()).toEqual({ via: "hono" });
    expect((await post("/fast/", {})).status).toBe(404);
  });

  it("maps an ApiError to its status, body and headers", async () => {
    const { post } = await start();
    const res = await post("/fast", { fail: "api" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await res.json()).toEqual({ error: "slow down", field: "x" });
  });

  it("hides the cause of a 500 from the body and logs it once on the request line", async () => {
    const { post, lines } = await start();
    const res = await post("/fast", { fail: "crash" });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal error" });
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain("kaboom");
  });

  it("cuts the connection, logs it, and goes on serving when an answer cannot be written", async () => {
    const { post, lines } = await start();
    await expect(post("/fast", { fail: "unwritable" })).rejects.toThrow();
    expect(lines.some((l) => l.msg === "response failed" && l.level === 50)).toBe(true);
    expect((await post("/fast", { a: 3 })).status).toBe(202);
  });

  it("logs one line per request with the route, status and key prefix, and counts it in the metrics", async () => {
    const { url, post, lines } = await start();
    await post("/fast?x=1", { a: 1 });
    const requestLines = lines.filter((l) => l.msg === "request");
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      method: "POST",
      path: "/fast",
      route: "/fast",
      status: 202,
      key: "svc_test_abcde",
    });
    expect(typeof requestLines[0]?.requestId).toBe("string");
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(/http_requests_total\{[^}]*method="POST"[^}]*route="\/fast"[^}]*status="202"[^}]*\} 1/);
  });

  it("answers 413 to a body over the limit, and the connection stays usable", async () => {
    const { post } = await start();
    const res = await post("/fast", { big: "x".repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect((await post("/fast", { a: 2 })).status).toBe(202);
  });
});
