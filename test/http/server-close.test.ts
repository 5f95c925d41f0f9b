import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { newApp } from "../../src/http/app.js";
import { listen } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";

/** One request on a keep-alive agent; the connection stays open afterwards. */
function get(url: string, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

function slowApp() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived: () => void = () => {};
  const inFlight = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const app = newApp({ log: createLogger({ level: "silent" }) });
  app.get("/fast", (c) => c.json({ ok: true }));
  app.get("/slow", async (c) => {
    arrived();
    await released;
    return c.json({ answered: true });
  });
  return { app, release, inFlight };
}

describe("closing a server", () => {
  it("settles at once with an idle keep-alive connection open", async () => {
    const { app } = slowApp();
    const server = await listen(app, { host: "127.0.0.1", port: 0 });
    const agent = new Agent({ keepAlive: true });
    expect((await get(`${server.url}/fast`, agent)).status).toBe(200);
    // Positive control: the agent holds the connection open, idle.
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);

    const started = performance.now();
    await server.close(30_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    agent.destroy();
  });

  it("answers a request in flight, then settles", async () => {
    const { app, release, inFlight } = slowApp();
    const server = await listen(app, { host: "127.0.0.1", port: 0 });
    const agent = new Agent({ keepAlive: true });
    const answer = get(`${server.url}/slow`, agent);
    await inFlight;

    let closed = false;
    const closing = server.close(30_000).then(() => {
      closed = true;
    });
    // New connections are refused from here on; the one in flight still gets its answer.
    await expect(get(`${server.url}/fast`, new Agent())).rejects.toThrow();
    expect(closed).toBe(false);
    release();
    expect(await answer).toEqual({ status: 200, body: '{"answered":true}' });
    await closing;
    expect(closed).toBe(true);
    agent.destroy();
  });

  it("cuts a request that outlives the grace period, and settles", async () => {
    const { app, inFlight } = slowApp();
    const server = await listen(app, { host: "127.0.0.1", port: 0 });
    const answer = get(`${server.url}/slow`, new Agent({ keepAlive: true })).catch((error: Error) => error);
    await inFlight;
    const started = performance.now();
    await server.close(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(await answer).toBeInstanceOf(Error);
  });
});
