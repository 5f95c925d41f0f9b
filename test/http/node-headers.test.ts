import { request } from "node:http";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { requestHeader, setResponseHeader } from "../../src/http/node-headers.js";
import { listen } from "../../src/http/server.js";

const app = new Hono();
app.get("/set", (c) => {
  setResponseHeader(c, "x-set", "one");
  return c.json({ ok: true });
});
app.get("/set-own", (c) => {
  setResponseHeader(c, "x-set", "one");
  return new Response("own", { headers: { "x-set": "the handler's" } });
});
app.get("/h", (c) =>
  c.json({ key: requestHeader(c, "x-api-key") ?? null, missing: requestHeader(c, "x-missing") ?? null }),
);

/** A request with raw headers (so one can be sent twice; Node then adds no Host of its own). */
function get(url: string, headers: [string, string][]): Promise<Record<string, unknown>> {
  const raw = [["host", new URL(url).host], ...headers].flat();
  return new Promise((resolve, reject) => {
    const req = request(`${url}/h`, { headers: raw as unknown as Record<string, string> }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => {
        try {
          resolve(JSON.parse(text) as Record<string, unknown>);
        } catch {
          reject(new Error(`${res.statusCode}: ${text}`));
        }
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("requestHeader", () => {
  it("reads Node's own headers over a socket, a repeated one joined as web Headers join it", async () => {
    const server = await listen(app, { host: "127.0.0.1", port: 0 });
    try {
      expect(await get(server.url, [["x-api-key", "one"]])).toEqual({ key: "one", missing: null });
      expect(
        await get(server.url, [
          ["x-api-key", "one"],
          ["X-Api-Key", "two"],
        ]),
      ).toEqual({ key: "one, two", missing: null });
    } finally {
      await server.close();
    }
  });

  it("sets a response header on Node's response, merged into any response the handler returns; its own wins", async () => {
    const server = await listen(app, { host: "127.0.0.1", port: 0 });
    try {
      expect((await fetch(`${server.url}/set`)).headers.get("x-set")).toBe("one");
      expect((await fetch(`${server.url}/set-own`)).headers.get("x-set")).toBe("the handler's");
    } finally {
      await server.close();
    }
    expect((await app.request("/set")).headers.get("x-set")).toBe("one");
  });

  it("falls back to Hono's reader without Node (app.request)", async () => {
    const res = await app.request("/h", { headers: { "x-api-key": "one" } });
    expect(await res.json()).toEqual({ key: "one", missing: null });
  });
});
