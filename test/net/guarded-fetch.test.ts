import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  compilePolicy,
  createGuardedFetch,
  type GuardedFetch,
  OutboundError,
  type Resolver,
  resolveAllowed,
} from "../../src/net/index.js";

/** Every server listens on 127.0.0.1: these tests never send a packet anywhere else. */
const servers: Array<{ close(): unknown }> = [];
const clients: GuardedFetch[] = [];

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => (s as Server).close(r))));
});

interface Received {
  method: string | undefined;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

async function httpServer(handler: (req: IncomingMessage, res: ServerResponse, received: Received[]) => void) {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks) });
    handler(req, res, received);
  });
  return { port: await listen(server), received, server };
}

/** A bare TCP listener that only counts connections: proves that a refused request never connected. */
async function connectionCounter() {
  const counter = { connections: 0 };
  const server = createTcpServer((socket) => {
    counter.connections += 1;
    socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, counter };
}

function client(options: Parameters<typeof createGuardedFetch>[0]) {
  const c = createGuardedFetch(options);
  clients.push(c);
  return c;
}

const toLoopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];

describe("SSRF guard: allowed deliveries (sandbox / allow-list, loopback only)", () => {
  it("POSTs the exact body bytes and headers to a loopback receiver in sandbox mode", async () => {
    const { port, received } = await httpServer((_req, res) => res.writeHead(204).end());
    const body = new Uint8Array(Buffer.from('{"a": 1,\r\n "ü": "✓"}\n'));
    const response = await client({ policy: { mode: "sandbox" } }).fetch(`http://127.0.0.1:${port}/hook?x=1`, {
      headers: { "content-type": "application/json", "x-svc-event": "install.test" },
      body,
    });
    expect(response).toMatchObject({ status: 204, ok: true, truncated: false });
    expect(received[0]?.method).toBe("POST");
    expect(received[0]?.headers["x-svc-event"]).toBe("install.test");
    expect(received[0]?.headers["content-length"]).toBe(String(body.byteLength));
    expect(new Uint8Array(received[0]?.body ?? [])).toEqual(body);
  });

  it("connects to the address the injected resolver answered (the lookup is the connecting one)", async () => {
    const { port } = await httpServer((_req, res) => res.writeHead(200, { "x-answer": "yes" }).end("fine"));
    const names: string[] = [];
    const resolve: Resolver = async (name) => {
      names.push(name);
      return toLoopback(name);
    };
    const response = await client({ policy: { mode: "sandbox" }, resolve }).fetch(`http://localhost:${port}/`);
    expect(names).toEqual(["localhost"]);
    expect(response.headers.get("x-answer")).toBe("yes");
    expect(new TextDecoder().decode(response.body)).toBe("fine");
  });

  it("reports any non-2xx as a response that is not ok", async () => {
    const { port } = await httpServer((_req, res) => res.writeHead(503, { "retry-after": "30" }).end());
    const response = await client({ policy: { mode: "sandbox" } }).fetch(`http://127.0.0.1:${port}/`);
    expect(response).toMatchObject({ status: 503, ok: false });
    expect(response.headers.get("retry-after")).toBe("30");
  });
});

describe("SSRF guard: refusals send nothing", () => {
  it("live mode refuses a loopback literal before connecting", async () => {
    const { port, counter } = await connectionCounter();
    const guarded = client({ policy: { mode: "live" } });
    for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]", "2130706433"]) {
      await expect(guarded.fetch(`https://${host}:${port}/`)).rejects.toMatchObject({
        code: "url_refused",
        reason: "address_not_allowed",
      });
    }
    expect(counter.connections).toBe(0);
  });

  it("live mode refuses plain http", async () => {
    await expect(client({ policy: { mode: "live" } }).fetch("http://hooks.vendor.test/")).rejects.toMatchObject({
      code: "url_refused",
      reason: "scheme_not_allowed",
    });
  });

  it("refuses a name resolving to a forbidden address at connect time, before any connection", async () => {
    const { port, counter } = await connectionCounter();
    const guarded = client({ policy: { mode: "live" }, resolve: toLoopback });
    const error = await guarded.fetch(`https://hooks.vendor.test:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ code: "address_refused", reason: "loopback" });
    expect(counter.connections).toBe(0);
  });

  it("DNS rebinding: a name that answered a public address to the check and loopback at connect is refused", async () => {
    const { port, counter } = await connectionCounter();
    let calls = 0;
    const rebinding: Resolver = async () => {
      calls += 1;
      // The public answer is only ever given to the ahead-of-time check below, never to a connection.
      return [{ address: calls === 1 ? "93.184.216.34" : "127.0.0.1", family: 4 }];
    };
    const policy = { mode: "live" } as const;
    await expect(
      resolveAllowed("rebind.test", compilePolicy(policy), { plaintext: false, resolve: rebinding }),
    ).resolves.toBeTruthy();
    const error = await client({ policy, resolve: rebinding })
      .fetch(`https://rebind.test:${port}/`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "address_refused", reason: "loopback" });
    expect(calls).toBe(2);
    expect(counter.connections).toBe(0);
  });

  it("sandbox mode refuses a name that resolves to the unspecified address (it reaches the local host)", async () => {
    const { port, counter } = await connectionCounter();
    // 0.0.0.0 reaches this host, so even a broken guard could only connect locally.
    const resolve: Resolver = async () => [{ address: "0.0.0.0", family: 4 }];
    const error = await client({ policy: { mode: "sandbox" }, resolve })
      .fetch(`http://localhost:${port}/`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "address_refused", reason: "unspecified" });
    expect(counter.connections).toBe(0);
  });
});

describe("SSRF guard: no redirects, bounded time and size (§6.4.1)", () => {
  it("does not follow a redirect: the 3xx is the (failed) result", async () => {
    const target = await httpServer((_req, res) => res.writeHead(200).end());
    const { port } = await httpServer((_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end(),
    );
    const response = await client({ policy: { mode: "sandbox" } }).fetch(`http://127.0.0.1:${port}/`);
    expect(response).toMatchObject({ status: 302, ok: false });
    expect(target.received).toHaveLength(0);
  });

  it("gives up when no response arrives within the timeout", async () => {
    const { port } = await httpServer(() => {});
    const started = Date.now();
    const error = await client({ policy: { mode: "sandbox" }, timeoutMs: 200 })
      .fetch(`http://127.0.0.1:${port}/`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "timeout" });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("counts the body in the timeout: a response that starts and then stalls times out", async () => {
    const { port } = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial");
    });
    const error = await client({ policy: { mode: "sandbox" }, timeoutMs: 200 })
      .fetch(`http://127.0.0.1:${port}/`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "timeout" });
  });

  it("waits 10 seconds unless told", async () => {
    const { DELIVERY_TIMEOUT_MS } = await import("../../src/net/index.js");
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
  });

  it("reads at most maxResponseBytes of the answer and reports the truncation", async () => {
    const { port } = await httpServer((_req, res) => res.writeHead(200).end(Buffer.alloc(1_000_000, 0x61)));
    const response = await client({ policy: { mode: "sandbox" }, maxResponseBytes: 1024 }).fetch(
      `http://127.0.0.1:${port}/`,
    );
    expect(response).toMatchObject({ status: 200, ok: true, truncated: true });
    expect(response.body.byteLength).toBe(1024);
  });

  it("reports a refused connection as a network error", async () => {
    const { port, server } = await httpServer(() => {});
    await new Promise((r) => server.close(r));
    await expect(client({ policy: { mode: "sandbox" } }).fetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({
      code: "network",
    });
  });
});

describe("SSRF guard: https with the connect-time lookup still verifies the certificate for the host name", () => {
  const dir = mkdtempSync(join(tmpdir(), "guarded-fetch-"));
  let port = 0;
  let cert = "";

  beforeAll(async () => {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=receiver.test",
        "-addext",
        "subjectAltName=DNS:receiver.test",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    const server = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert }, (_req, res) =>
      res.writeHead(200).end("tls"),
    );
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("delivers over https in live mode to an allow-listed address with a trusted certificate", async () => {
    const guarded = client({ policy: { mode: "live", allowList: ["127.0.0.1"] }, resolve: toLoopback, ca: cert });
    const response = await guarded.fetch(`https://receiver.test:${port}/`);
    expect(response.status).toBe(200);
    expect(new TextDecoder().decode(response.body)).toBe("tls");
  });

  it("refuses a certificate it does not trust", async () => {
    const guarded = client({ policy: { mode: "live", allowList: ["127.0.0.1"] }, resolve: toLoopback });
    await expect(guarded.fetch(`https://receiver.test:${port}/`)).rejects.toMatchObject({ code: "network" });
  });
});
