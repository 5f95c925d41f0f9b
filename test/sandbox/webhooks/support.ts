import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, vi } from "vitest";
import { createWebhookVerifier, type WebhookEnvelope, type WebhookVerification } from "../../../src/receiver/index.js";
import type { Sandbox } from "../../../src/sandbox/index.js";
import { type Json, newSandbox } from "../support.js";

/** One delivery as a vendor's receiver saw it, with what `src/receiver` made of it. */
export interface Received {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  verification: WebhookVerification<WebhookEnvelope>;
  /** The envelope, parsed independently of the verifier. */
  envelope: WebhookEnvelope;
  at: number;
}

/** What the receiver answers to the n-th request (1-based): a status, or "hang" to never answer. */
export type Responder = (n: number, received: Received) => number | "hang";

export interface Receiver {
  url: string;
  received: Received[];
  /** The secrets this receiver verifies with, by version (§6.3.3); change them during a test. */
  secrets: Map<number, string>;
  respond: Responder;
  close(): Promise<void>;
}

/**
 * A real local receiver (127.0.0.1, free port) verifying with the vendor helper, as a vendor would. It answers 2xx
 * only to a verified delivery unless `respond` says otherwise, and marks an event processed only when it answered 2xx.
 */
export async function startReceiver(
  options: { secrets?: Record<number, string>; respond?: Responder; host?: string } = {},
) {
  const secrets = new Map<number, string>(Object.entries(options.secrets ?? {}).map(([v, s]) => [Number(v), s]));
  const verifier = createWebhookVerifier({ secrets: { secretFor: (version) => secrets.get(version) } });
  const received: Received[] = [];
  const receiver = { received, secrets, respond: options.respond ?? (() => 200) } as Omit<Receiver, "url" | "close">;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const verification = await verifier.verify({ headers: req.headers, rawBody });
    const entry: Received = {
      headers: req.headers,
      rawBody,
      verification,
      envelope: JSON.parse(rawBody.toString("utf8")) as WebhookEnvelope,
      at: Date.now(),
    };
    received.push(entry);
    const answer = receiver.respond(received.length, entry);
    if (answer === "hang") return;
    const status = verification.ok || verification.acknowledge ? answer : 401;
    if (status >= 200 && status < 300 && verification.ok && verification.eventId) {
      await verifier.markProcessed(verification.eventId);
    }
    res.writeHead(status, { "content-type": "application/json" }).end("{}");
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as Receiver;
}

/** Fast delivery settings for tests: milliseconds instead of minutes, no jitter. */
export const FAST = { retryDelaysMs: [100, 200, 400], jitter: 0, pollIntervalMs: 20, timeoutMs: 2000 };

export const ADMIN_TOKEN = "admin-token-for-webhook-tests";

export function webhookSandbox(webhooks = FAST) {
  return newSandbox({ adminToken: ADMIN_TOKEN, webhooks });
}

/**
 * A webhook sandbox for each test of the file, with Sunrise's owner signed in; the receivers a test adds to
 * `receivers` are closed after it.
 */
export function webhookSandboxPerTest(): {
  sandbox: ReturnType<typeof webhookSandbox>;
  session: string;
  receivers: Receiver[];
} {
  const fixture = { sandbox: undefined as unknown as ReturnType<typeof webhookSandbox>, session: "", receivers: [] };
  beforeEach(() => {
    fixture.sandbox = webhookSandbox();
    fixture.session = fixture.sandbox.admin.ownerSession("org_sunrise").sessionToken;
  });
  afterEach(async () => {
    fixture.sandbox.close();
    await Promise.all(fixture.receivers.splice(0).map((r: Receiver) => r.close()));
  });
  return fixture;
}

/** A console request with an owner session (bearer), an API key, or neither. */
export async function consoleCall(
  sandbox: Sandbox,
  method: string,
  path: string,
  init: { session?: string; key?: string; json?: unknown } = {},
): Promise<Json> {
  const headers: Record<string, string> = {};
  if (init.session) headers.authorization = `Bearer ${init.session}`;
  if (init.key) headers["x-api-key"] = init.key;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const res = await sandbox.app.request(path, {
    method,
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

/** Polls `probe` until it gives a value (not undefined or false); fails the test after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: Probe<T>, timeoutMs = 5000): Promise<T> {
  // vi.waitUntil waits for a truthy value: a value of 0 or "" is boxed so that it counts as given.
  const boxed = async () => {
    const value = await probe();
    return value !== undefined && value !== false && { value };
  };
  try {
    return (await vi.waitUntil(boxed, { timeout: timeoutMs, interval: 10 })).value;
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("Timed out in waitUntil")) {
      throw new Error(`timed out waiting for ${what}`, { cause: error });
    }
    throw error;
  }
}

export const STARTS_AT = "2026-10-01T15:00:00Z";
export const ENDS_AT = "2026-10-01T16:00:00Z";
