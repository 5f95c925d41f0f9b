import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { vi } from "vitest";
import { createWebhookVerifier, type WebhookEnvelope, type WebhookVerification } from "../../../src/receiver/index.js";

export interface Delivery {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  verification: WebhookVerification<WebhookEnvelope>;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Secrets by version (§6.3.3), loaded as the console shows them (§6.5.2). */
  secrets: Map<number, string>;
  /** Resolves once `count` deliveries arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

/**
 * A partner's receiver on this machine: verifies every delivery with the vendor helper (src/receiver, §6.3.2) and
 * answers 200 to an authentic one, 401 otherwise. The target must be able to reach `host` (loopback by default).
 */
export async function startWebhookReceiver(host = process.env.CONFORMANCE_RECEIVER_HOST ?? "127.0.0.1") {
  const secrets = new Map<number, string>();
  const verifier = createWebhookVerifier({ secrets: { secretFor: (version) => secrets.get(version) } });
  const deliveries: Delivery[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const verification = await verifier.verify({ headers: req.headers, rawBody });
    deliveries.push({ headers: req.headers, rawBody, verification });
    res.writeHead(verification.ok || verification.acknowledge ? 200 : 401).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/webhooks`,
    deliveries,
    secrets,
    async waitFor(count, timeoutMs = 15_000) {
      try {
        await vi.waitUntil(() => deliveries.length >= count, { timeout: timeoutMs, interval: 20 });
      } catch (error) {
        throw new Error(`expected ${count} deliveries, got ${deliveries.length}`, { cause: error });
      }
      return deliveries;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
