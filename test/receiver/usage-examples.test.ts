import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { newDeliveryId, signWebhook, unixSeconds } from "../../src/contract/signing.js";
import {
  buildEnvelope,
  encodeEnvelope,
  newEventId,
  type WebhookEnvelope,
} from "../../src/contract/webhook-envelope.js";
import { createGuardedFetch } from "../../src/net/index.js";
import { createWebhookVerifier } from "../../src/receiver/index.js";

// The examples of docs/webhooks.md (and the README snippet), run for real: a sender signs as §6.2–§6.3 say and
// delivers through the guarded client; the receivers are written as the docs show them.

const SECRET = "whsec_example_secret";

function signedDelivery(envelope: WebhookEnvelope, secret = SECRET) {
  const body = encodeEnvelope(envelope);
  const headers = signWebhook({
    secret,
    secretVersion: 1,
    event: envelope.event,
    deliveryId: newDeliveryId(),
    timestamp: unixSeconds(),
    rawBody: body,
  });
  return { headers: { ...headers }, body };
}

const booked = () =>
  buildEnvelope({
    id: newEventId(),
    event: "appointment.booked",
    occurredAt: new Date(),
    resource: { type: "appointment", id: "apt_42", version: 1 },
    data: { startsAt: "2026-09-01T09:00:00.000Z" },
  });

describe("docs/webhooks.md: Node http receiver", () => {
  const processed: string[] = [];
  // --- as in the docs ---
  const verifier = createWebhookVerifier({ secrets: { 1: SECRET } });
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const answer = await verifier.handle(
        { headers: req.headers, rawBody: Buffer.concat(chunks) },
        async (delivery) => {
          processed.push(delivery.body.id); // store it durably first: the 200 tells the sender to stop (§6.4.1)
        },
      );
      res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
    } catch {
      res.writeHead(500).end();
    }
  });
  // --- end ---
  const client = createGuardedFetch({ policy: { mode: "sandbox" } });
  const started = new Promise<number>((r) =>
    server.listen(0, "127.0.0.1", () => r((server.address() as AddressInfo).port)),
  );
  afterAll(async () => {
    client.close();
    await new Promise((r) => server.close(r));
  });

  it("accepts a signed delivery once and acknowledges a retry of the same event without processing it", async () => {
    const url = `http://127.0.0.1:${await started}/webhooks`;
    const envelope = booked();
    const first = signedDelivery(envelope);
    const retry = signedDelivery(envelope);
    const answers = [];
    for (const d of [first, retry, first]) answers.push(await client.fetch(url, { headers: d.headers, body: d.body }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(processed).toEqual([envelope.id]);
  });

  it("refuses a delivery signed with another secret", async () => {
    const url = `http://127.0.0.1:${await started}/webhooks`;
    const forged = signedDelivery(booked(), "not-the-secret");
    const answer = await client.fetch(url, { headers: forged.headers, body: forged.body });
    expect(answer.status).toBe(401);
    expect(JSON.parse(new TextDecoder().decode(answer.body))).toEqual({ error: "bad_signature" });
  });
});

describe("docs/webhooks.md: Hono receiver", () => {
  it("verifies the raw body Hono received", async () => {
    const processed: string[] = [];
    // --- as in the docs ---
    const verifier = createWebhookVerifier({ secrets: { 1: SECRET } });
    const app = new Hono();
    app.post("/webhooks", async (c) => {
      const rawBody = new Uint8Array(await c.req.arrayBuffer());
      const answer = await verifier.handle({ headers: c.req.raw.headers, rawBody }, async (delivery) => {
        processed.push(delivery.body.id);
      });
      return c.json(answer.body, answer.status);
    });
    // --- end ---
    const envelope = booked();
    const d = signedDelivery(envelope);
    const ok = await app.request("/webhooks", { method: "POST", headers: d.headers, body: d.body });
    expect(ok.status).toBe(200);
    const tampered = await app.request("/webhooks", {
      method: "POST",
      headers: d.headers,
      body: `${new TextDecoder().decode(d.body)} `,
    });
    expect(tampered.status).toBe(401);
    expect(processed).toEqual([envelope.id]);
  });
});
