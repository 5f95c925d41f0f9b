import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unixSeconds } from "../../../src/contract/signing.js";
import {
  bearer,
  type Company,
  deliverToGateway,
  failInserts,
  ownerApi,
  platformEnvelope,
  seedCompany,
  startGateway,
  type WebhookGateway,
} from "./support.js";

const V1 = "whsec_platform_v1_0123456789abcdef";
const V2 = "whsec_platform_v2_fedcba9876543210";

let clock = Date.now();
let t: WebhookGateway;
let acme: Company;
let api: ReturnType<typeof ownerApi>;

beforeAll(async () => {
  t = await startGateway({ now: () => new Date(clock) });
  acme = await seedCompany(t.gateway, "Acme");
  api = ownerApi(t.url, await bearer(t.url, acme.email));
  expect((await api("POST", "/platform/secrets", { version: 1, secret: V1 })).status).toBe(200);
});
afterAll(() => t.close());

/** The company's stored events of that id, through the store (newest first; the test stores far fewer than 1,000). */
const stored = async (eventId: string) =>
  (await t.gateway.ctx.webhooks.platformEvents.list(acme.company.id, 1_000)).filter((e) => e.id === eventId);

const send = (body: string, options: Parameters<typeof deliverToGateway>[3]) =>
  deliverToGateway(t.url, acme.company.id, body, options);

describe("§6.3.2 the receiver verifies in order: HMAC over raw bytes, constant time, 300 s, de-duplicate, parse", () => {
  it("accepts an authentic delivery and stores its event, listed for the owner", async () => {
    const envelope = platformEnvelope({});
    const answer = await send(JSON.stringify(envelope), { secret: V1 });
    expect(answer).toMatchObject({ status: 200, body: { received: true } });
    expect(await stored(envelope.id)).toHaveLength(1);
    const listed = await api("GET", "/platform/events?limit=5");
    expect((listed.body.events as Array<{ id: string }>).map((e) => e.id)).toContain(envelope.id);
  });

  it("refuses a body changed by one byte after signing (§6.3.4), and stores nothing", async () => {
    const envelope = platformEnvelope({});
    const body = JSON.stringify(envelope);
    const signed = await send(body, { secret: V1 });
    expect(signed.status).toBe(200);
    const other = platformEnvelope({});
    const tampered = JSON.stringify(other);
    const res = await fetch(`${t.url}/webhooks/platform/${acme.company.id}`, {
      method: "POST",
      headers: { ...signed.headers, "x-svc-delivery-id": "dlv_tampered_1" },
      body: tampered.replace('"version":1', '"version":2'),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "bad_signature" });
    expect(await stored(other.id)).toHaveLength(0);
  });

  it("refuses a re-serialised body even when it means the same JSON", async () => {
    const envelope = platformEnvelope({});
    const sent = JSON.stringify(envelope);
    const signed = await send(sent, { secret: V1, deliveryId: "dlv_reserialised_probe" });
    expect(signed.status).toBe(200);
    const spaced = JSON.stringify(platformEnvelope({}), null, 2);
    const res = await fetch(`${t.url}/webhooks/platform/${acme.company.id}`, {
      method: "POST",
      headers: { ...signed.headers, "x-svc-delivery-id": "dlv_reserialised_2" },
      body: spaced,
    });
    expect(res.status).toBe(401);
  });

  it("refuses a wrong secret, a missing timestamp and an unknown secret version (§6.3.3)", async () => {
    const body = JSON.stringify(platformEnvelope({}));
    expect((await send(body, { secret: "whsec_not_the_secret_at_all" })).body).toEqual({ error: "bad_signature" });
    expect((await send(body, { secret: V1, version: 7 })).body).toEqual({ error: "unknown_version" });
    const signed = await send(body, { secret: "whsec_wrong_again_00000000" });
    const { "x-svc-timestamp": _dropped, ...withoutTimestamp } = signed.headers;
    const res = await fetch(`${t.url}/webhooks/platform/${acme.company.id}`, {
      method: "POST",
      headers: withoutTimestamp,
      body,
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "missing_timestamp" });
  });

  it("refuses a timestamp 301 s old or ahead, and accepts one 300 s old (§8 tolerance)", async () => {
    const now = unixSeconds(clock);
    for (const timestamp of [now - 301, now + 301]) {
      const answer = await send(JSON.stringify(platformEnvelope({})), { secret: V1, timestamp });
      expect(answer).toMatchObject({ status: 401, body: { error: "stale_timestamp" } });
    }
    const edge = await send(JSON.stringify(platformEnvelope({})), { secret: V1, timestamp: now - 300 });
    expect(edge.status).toBe(200);
  });

  it("answers 400 to an authentic body that is not an envelope, after the signature passed", async () => {
    const answer = await send(JSON.stringify({ hello: "world" }), { secret: V1 });
    expect(answer).toMatchObject({ status: 400, body: { error: "malformed_body" } });
  });

  it("answers 404, the same for an unknown company and for a company without secrets (§7)", async () => {
    const unknown = await deliverToGateway(t.url, "org_unknown", JSON.stringify(platformEnvelope({})), { secret: V1 });
    const bare = await seedCompany(t.gateway, "No secrets");
    const unset = await deliverToGateway(t.url, bare.company.id, JSON.stringify(platformEnvelope({})), { secret: V1 });
    expect(unknown.status).toBe(404);
    expect(unset.status).toBe(404);
    expect(unset.body).toEqual(unknown.body);
  });
});

describe("§6.6 idempotent consumer: each event processed once, every repeat answered 2xx", () => {
  it("answers a replayed delivery id 200 without processing it again", async () => {
    const envelope = platformEnvelope({});
    const body = JSON.stringify(envelope);
    const first = await send(body, { secret: V1, deliveryId: "dlv_replayed_once" });
    const replay = await send(body, { secret: V1, deliveryId: "dlv_replayed_once" });
    expect(first.body).toEqual({ received: true });
    expect(replay).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    expect(await stored(envelope.id)).toHaveLength(1);
  });

  it("answers a retry of a processed event (new delivery id) 200 and does not process it again", async () => {
    const envelope = platformEnvelope({});
    const body = JSON.stringify(envelope);
    await send(body, { secret: V1 });
    const retry = await send(body, { secret: V1 });
    expect(retry).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await stored(envelope.id)).toHaveLength(1);
    expect(await t.gateway.ctx.webhooks.platformEvents.bodyOf(acme.company.id, envelope.id)).toBe(body);
  });

  it("processes an event once when its deliveries arrive at the same time", async () => {
    const envelope = platformEnvelope({});
    const body = JSON.stringify(envelope);
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(body, { secret: V1 })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.duplicate !== true)).toHaveLength(1);
    expect(await stored(envelope.id)).toHaveLength(1);
  });
});

describe("§6.4.1 2xx only after the event is durably stored", () => {
  it("answers 5xx when the store fails, so the platform retries; the retry is then processed", async () => {
    const fault = await failInserts(t.gateway, "platform_events", { once: false });
    const envelope = platformEnvelope({});
    const body = JSON.stringify(envelope);
    try {
      const failed = await send(body, { secret: V1 });
      expect(failed.status).toBe(500);
      expect(await fault.fired()).toBe(true);
      expect(await stored(envelope.id)).toHaveLength(0);
    } finally {
      await fault.remove();
    }
    const retry = await send(body, { secret: V1 });
    expect(retry).toMatchObject({ status: 200, body: { received: true } });
    expect(await stored(envelope.id)).toHaveLength(1);
  });
});

describe("§6.5 two-phase rotation of the platform's secret", () => {
  it("verifies a loaded pending version at once, keeps the previous for the overlap, then drops it", async () => {
    const company = await seedCompany(t.gateway, "Rotating");
    const owner = ownerApi(t.url, await bearer(t.url, company.email));
    const sendAs = (secret: string, version: number) =>
      deliverToGateway(t.url, company.company.id, JSON.stringify(platformEnvelope({})), {
        secret,
        version,
        timestamp: unixSeconds(clock),
      });
    await owner("POST", "/platform/secrets", { version: 1, secret: V1 });
    expect((await sendAs(V2, 2)).body).toEqual({ error: "unknown_version" });

    // §6.5.2: the pending secret is loaded before the platform activates it.
    const loaded = await owner("POST", "/platform/secrets", { version: 2, secret: V2 });
    expect(loaded.body.secrets).toMatchObject({ currentVersion: 1, pendingVersion: 2 });
    expect(JSON.stringify(loaded.body)).not.toContain(V2);
    expect((await sendAs(V2, 2)).status).toBe(200);
    expect((await sendAs(V1, 1)).status).toBe(200);

    // §6.5.3: activated; v1 keeps verifying for the overlap (in-flight retries), then is dropped.
    const activated = await owner("POST", "/platform/secrets/2/activate", { overlapSeconds: 600 });
    expect(activated.status).toBe(200);
    expect((await sendAs(V1, 1)).status).toBe(200);
    clock += 601_000;
    try {
      expect((await sendAs(V1, 1)).body).toEqual({ error: "unknown_version" });
      expect((await sendAs(V2, 2)).status).toBe(200);
      const state = await owner("GET", "/platform");
      expect(state.body.secrets).toMatchObject({ currentVersion: 2, versions: [{ version: 2, notAfter: null }] });
    } finally {
      clock -= 601_000;
    }
  });

  it("keeps the secrets sealed at rest and refuses a version below the current one", async () => {
    const sealed = await t.gateway.ctx.webhooks.platformEvents.sealedSecrets(acme.company.id);
    expect(sealed).toEqual(expect.any(String));
    expect(sealed).not.toContain(V1);
    const company = await seedCompany(t.gateway, "Lower");
    const owner = ownerApi(t.url, await bearer(t.url, company.email));
    await owner("POST", "/platform/secrets", { version: 3, secret: V1 });
    expect((await owner("POST", "/platform/secrets", { version: 2, secret: V2 })).status).toBe(409);
    expect((await owner("POST", "/platform/secrets/4/activate", {})).status).toBe(409);
  });
});
