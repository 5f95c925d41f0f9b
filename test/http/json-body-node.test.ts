import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newApp } from "../../src/http/app.js";
import { jsonBody } from "../../src/http/json-body.js";
import { HttpMetrics } from "../../src/http/metrics.js";
import { listen, type RunningServer } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";

/** Over a real socket: the declared-length fast path and the counted chunked path of the JSON body reader. */
let server: RunningServer;

beforeAll(async () => {
  const app = newApp({ log: createLogger({ level: "silent" }), metrics: new HttpMetrics("body-test") });
  app.post("/echo", jsonBody({ maxBytes: 1_024 }), (c) => c.json({ body: c.get("body") as unknown }));
  server = await listen(app, { host: "127.0.0.1", port: 0 });
});

afterAll(() => server.close());

function post(chunks: string[], headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/echo`, { method: "POST", headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe("§8 request body limit over HTTP", () => {
  it("reads a body of declared length in one piece", async () => {
    const json = JSON.stringify({ name: "Ana", note: "é".repeat(100) });
    const res = await post([json], {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(json)),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ body: JSON.parse(json) });
  });

  it("answers 413 to a declared length over the limit without reading it", async () => {
    const json = JSON.stringify({ note: "x".repeat(4_990) });
    const res = await post([json], { "content-type": "application/json", "content-length": String(json.length) });
    expect(res.status).toBe(413);
  });

  it("counts a chunked body while it streams and answers 413 past the limit", async () => {
    const chunk = `"${"x".repeat(500)}",`;
    const res = await post(["[", chunk, chunk, chunk, '"end"]'], {
      "content-type": "application/json",
      "transfer-encoding": "chunked",
    });
    expect(res.status).toBe(413);
    const small = await post(['{"a":', "1}"], { "content-type": "application/json", "transfer-encoding": "chunked" });
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body)).toEqual({ body: { a: 1 } });
  });
});
