import { createServer } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loopbackWebhookPorts } from "../../../src/gateway/webhooks/loopback-ports.js";
import {
  createGuardedFetch,
  type GuardedFetch,
  OutboundError,
  type OutboundPolicy,
  validateWebhookUrl,
} from "../../../src/net/index.js";
import { startTestGateway } from "../../helpers/gateway.js";
import { bearer, type Company, ownerApi, seedCompany, type WebhookGateway } from "./support.js";

/**
 * docs/decisions.md, "Loopback webhook targets": in sandbox mode a tenant's webhooks reach the local host only while
 * the gateway itself listens on loopback, or on the ports the operator lists — never the host's Redis, database or
 * the gateway's own port when others can reach the gateway.
 */

const servers: { close(): void }[] = [];
const clients: GuardedFetch[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(() => {
  for (const s of servers) s.close();
});

/** A local service that answers whatever comes (a stand-in for Redis or an admin port: it would talk back). */
async function localService(): Promise<number> {
  const server = createServer((_req, res) => res.writeHead(200).end("+OK secret-of-the-host"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({ close: () => server.close() });
  return (server.address() as AddressInfo).port;
}

describe("which local ports sandbox mode allows", () => {
  it("every port while the gateway listens on loopback; otherwise only the listed ones", () => {
    for (const host of ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"]) {
      expect(loopbackWebhookPorts(host, [4000])).toBe("any");
    }
    for (const host of ["0.0.0.0", "::", "10.1.2.3", "gateway.internal"]) {
      expect(loopbackWebhookPorts(host, [4000])).toEqual([4000]);
    }
  });

  const listed: OutboundPolicy = { mode: "sandbox", loopbackPorts: [4000] };
  const reasonOf = (url: string, policy: OutboundPolicy) => {
    const check = validateWebhookUrl(url, policy);
    return check.ok ? "ok" : `${check.reason}: ${check.message}`;
  };

  it.each(["http://127.0.0.1:4000/hooks", "http://localhost:4000/hooks", "http://[::1]:4000/hooks"])(
    "accepts a listed port: %s",
    (url) => {
      expect(reasonOf(url, listed)).toBe("ok");
      expect(reasonOf(url, { mode: "sandbox" })).toBe("ok");
    },
  );

  it.each([
    ["Redis's port", "http://127.0.0.1:6379/"],
    ["another loopback address", "http://127.0.0.9:8080/"],
    ["localhost by name", "http://localhost:5432/"],
    ["https's default port", "https://localhost/"],
  ])("refuses %s at creation when ports are listed", (_name, url) => {
    const port = new URL(url).port || "443";
    expect(reasonOf(url, listed)).toBe(
      `port_not_allowed: must not point at the local host on port ${port} (allowed: 4000)`,
    );
  });

  it("refuses at connect time a name that resolves to the local host on an unlisted port, before connecting", async () => {
    const counter = { connections: 0 };
    const tcp = createTcpServer((socket) => {
      counter.connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    servers.push({ close: () => tcp.close() });
    const port = (tcp.address() as AddressInfo).port;
    const resolve = async () => [{ address: "127.0.0.1", family: 4 as const }];
    const restricted = createGuardedFetch({ policy: { mode: "sandbox", loopbackPorts: [4000] }, resolve });
    const open = createGuardedFetch({ policy: { mode: "sandbox", loopbackPorts: [port] }, resolve });
    clients.push(restricted, open);
    const url = `https://receiver.localtest.example:${port}/hooks`;
    const refused = await restricted.fetch(url, { body: "{}" }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "address_refused" });
    expect(counter.connections).toBe(0);
    // Listed, the same name and port connect (the positive control; the counter drops the connection at once).
    const dropped = await open.fetch(url, { body: "{}" }).catch((error: unknown) => error);
    expect(dropped).toBeInstanceOf(OutboundError);
    expect(dropped).not.toMatchObject({ code: "address_refused" });
    expect(counter.connections).toBe(1);
  });
});

describe("a gateway that does not listen on loopback (sandbox mode)", () => {
  let t: WebhookGateway;
  let acme: Company;
  afterEach(async () => {
    await t?.close();
  });

  const subscribe = async (url: string) => {
    const key = await acme.issueKey({ partnerType: "lead_source" });
    const owner = ownerApi(t.url, await bearer(t.url, acme.email));
    return owner("POST", "/subscriptions", { vendorKeyId: key.id, url, events: ["submission.forwarded"] });
  };

  it("refuses a subscription to its own port or another local service, and accepts a listed port", async () => {
    const service = await localService();
    const listedPort = await localService();
    // As `serve` with HOST=0.0.0.0 and WEBHOOK_LOOPBACK_PORTS=<listedPort> configures it.
    const webhookLoopbackPorts = loopbackWebhookPorts("0.0.0.0", [listedPort]);
    t = await startTestGateway({ mode: "sandbox", webhookLoopbackPorts }, { engine: { poolSize: 1 } });
    acme = await seedCompany(t.gateway);
    const own = new URL(t.url).port;
    for (const port of [own, String(service)]) {
      const refused = await subscribe(`http://127.0.0.1:${port}/`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        field: "url",
        reason: "port_not_allowed",
        error: `url: must not point at the local host on port ${port} (allowed: ${listedPort})`,
      });
    }
    expect((await subscribe(`http://127.0.0.1:${listedPort}/hooks`)).status).toBe(201);
  });
});
