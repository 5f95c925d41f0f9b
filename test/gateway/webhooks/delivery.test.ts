import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createProfile,
  publishProfileVersion,
  saveProfileVersion,
} from "../../../src/gateway/profiles-admin/profiles.js";
import { createWebhookVerifier, readJson } from "../../../src/receiver/index.js";
import {
  bearer,
  type Company,
  deliveriesOf,
  ownerApi,
  type Receiver,
  seedCompany,
  settle,
  settledSubmission,
  startGateway,
  startReceiver,
  type WebhookGateway,
  waitFor,
} from "./support.js";

let t: WebhookGateway;
let acme: Company;
let api: ReturnType<typeof ownerApi>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startGateway({
    webhooks: {
      retrySchedule: [100, 200],
      jitter: 0,
      pollMs: 200,
      // Longer than any wait below: a request that never answers ends only when its test releases it, so "the others
      // went while it was in flight" cannot come from a timeout freeing its slot.
      timeoutMs: 10_000,
      perEndpoint: 4,
      maxInFlight: 16,
      disableAfter: { failures: 4, ms: 0 },
    },
  });
  acme = await seedCompany(t.gateway, "Acme");
  api = ownerApi(t.url, await bearer(t.url, acme.email));
});
afterAll(() => t.close());
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function subscribed(answer?: Parameters<typeof startReceiver>[0], extra: Record<string, unknown> = {}) {
  const endpoint = await startReceiver(answer);
  receivers.push(endpoint);
  const key = await acme.issueKey({ partnerType: "lead_source" });
  const created = await api("POST", "/subscriptions", {
    vendorKeyId: key.id,
    url: endpoint.url,
    events: ["submission.forwarded", "submission.failed"],
    ...extra,
  });
  expect(created.status).toBe(201);
  return {
    endpoint,
    key,
    id: String(created.body.id),
    secret: (created.body.secret as { secret: string }).secret,
  };
}

/** One lead forwarded for `keyId`: one submission.forwarded event. */
function forwarded(keyId: string, leadId = `lead_${randomBytes(4).toString("hex")}`) {
  return settle(
    t.gateway,
    settledSubmission(acme.company.id, keyId, {
      kind: "lead",
      status: "forwarded",
      result: { status: "created", leadId },
    }),
  );
}

type Delivery = {
  id: string;
  status: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
};
async function log(subscriptionId: string, query = ""): Promise<Delivery[]> {
  return (await api("GET", `/subscriptions/${subscriptionId}/deliveries${query}`)).body.deliveries as Delivery[];
}

/**
 * Resolves once the dispatcher has served a subscription's lane in two passes begun after `at` (it reads the
 * subscription each time: its periodic re-read of the backlog brings every lane with pending work back), and is idle:
 * whatever the first of them launched has been answered by then.
 */
async function servedTwiceAfter(subscriptionId: string, at: number): Promise<void> {
  const store = t.gateway.ctx.webhooks;
  const read = store.subscription;
  let served = 0;
  store.subscription = async (id) => {
    const row = await read.call(store, id);
    if (id === subscriptionId && Date.now() > at) served++;
    return row;
  };
  try {
    await waitFor(() => served >= 2, 5_000, `two passes over ${subscriptionId}`);
  } finally {
    store.subscription = read;
  }
  await dispatcherIdle();
}

/** Until no attempt is under way: one sent before a subscription was disabled still ends, and records its outcome. */
async function dispatcherIdle(): Promise<void> {
  const dispatcher = t.gateway.webhooks.dispatcher;
  await waitFor(
    () => dispatcher?.stats().inFlight === 0 && dispatcher.stats().probesInFlight === 0,
    5_000,
    "the dispatcher idle",
  );
}

describe("§6.2–§6.3 deliveries are signed exactly as the platform signs them", () => {
  it("sends the §6.2 headers, verifiable by the vendor receiver helper; evt_ id stable, delivery id new per attempt", async () => {
    let calls = 0;
    const s = await subscribed((_req, res) => {
      calls++;
      res.writeHead(calls < 3 ? 503 : 200).end();
    });
    await forwarded(s.key.id);
    await waitFor(() => s.endpoint.received.length === 3, 5_000, "three attempts");
    const verifier = createWebhookVerifier({ secrets: { 1: s.secret } });
    const ids = new Set<string>();
    const deliveryIds = new Set<string>();
    for (const r of s.endpoint.received) {
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["x-svc-event"]).toBe("submission.forwarded");
      expect(r.headers["x-svc-secret-version"]).toBe("1");
      expect(String(r.headers["x-svc-signature"])).toMatch(/^v1=[0-9a-f]{64}$/);
      deliveryIds.add(String(r.headers["x-svc-delivery-id"]));
      const verified = await verifier.verify({ headers: r.headers, rawBody: r.raw });
      expect(verified.ok).toBe(true);
      if (verified.ok) ids.add(verified.body.id);
    }
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^evt_/);
    expect(deliveryIds.size).toBe(3);
    await waitFor(() => calls === 3, 1_000);
  });

  it("signs with a pending secret only once it is activated (§6.5)", async () => {
    const s = await subscribed();
    const rotated = await api("POST", `/subscriptions/${s.id}/rotate-secret`);
    expect(rotated.body.pendingSecretVersion).toBe(2);
    await forwarded(s.key.id);
    await waitFor(() => s.endpoint.received.length === 1);
    expect(s.endpoint.received[0]?.headers["x-svc-secret-version"]).toBe("1");
    expect((await api("POST", `/subscriptions/${s.id}/activate-secret`, { pendingSecretVersion: 2 })).status).toBe(200);
    await forwarded(s.key.id);
    await waitFor(() => s.endpoint.received.length === 2);
    const second = s.endpoint.received[1];
    expect(second?.headers["x-svc-secret-version"]).toBe("2");
    const verifier = createWebhookVerifier({ secrets: { 2: String(rotated.body.secret) } });
    expect((await verifier.verify({ headers: second?.headers ?? {}, rawBody: second?.raw ?? "" })).ok).toBe(true);
  });

  it("maps the envelope with the subscription's outbound profile into the vendor's native body", async () => {
    const ctx = t.gateway.ctx;
    const expression = `{ "kind": event, "ref": id, "lead": data.leadId, "outcome": data.status }`;
    const envelope = { id: "evt_x", event: "submission.forwarded", data: { leadId: "lead_1", status: "created" } };
    const profile = await createProfile({
      ctx,
      companyId: acme.company.id,
      input: { name: "native-out", kind: "outbound" },
    });
    const saved = await saveProfileVersion({
      ctx,
      companyId: acme.company.id,
      profileId: profile.id,
      input: {
        expression,
        samples: [
          {
            name: "n",
            payload: envelope,
            expect: { body: { kind: "submission.forwarded", ref: "evt_x", lead: "lead_1", outcome: "created" } },
          },
        ],
      },
    });
    await publishProfileVersion({ ctx, companyId: acme.company.id, versionId: saved.version.id });
    const s = await subscribed(undefined, { outboundProfileVersionId: saved.version.id });
    await forwarded(s.key.id, "lead_native_1");
    await waitFor(() => s.endpoint.received.length === 1);
    const body = s.endpoint.bodies()[0];
    expect(body).toMatchObject({ kind: "submission.forwarded", lead: "lead_native_1", outcome: "created" });
    const verifier = createWebhookVerifier({
      secrets: { 1: s.secret },
      read: readJson((b) => (b as { ref?: string }).ref),
    });
    const r = s.endpoint.received[0];
    const verified = await verifier.verify({ headers: r?.headers ?? {}, rawBody: r?.raw ?? "" });
    expect(verified.ok && verified.eventId).toMatch(/^evt_/);
  });

  it("sends a test delivery on demand (resource type subscription, §6.1)", async () => {
    const s = await subscribed();
    const sent = await api("POST", `/subscriptions/${s.id}/test`);
    expect(sent.body.queued).toBe(true);
    await waitFor(() => s.endpoint.received.length === 1);
    expect(s.endpoint.bodies()[0]).toMatchObject({
      event: "webhook.test",
      resource: { type: "subscription", id: s.id },
    });
  });
});

describe("§6.4 retries, Retry-After, 410, sustained failure, dead letter and redelivery", () => {
  it("retries on the schedule, then dead-letters; redelivering one sends it again with the same event id", async () => {
    const s = await subscribed((_r, res) => res.writeHead(500).end("broken"));
    await forwarded(s.key.id);
    await waitFor(() => s.endpoint.received.length === 3, 5_000, "three attempts");
    const [a, b, c] = s.endpoint.received.map((r) => r.at);
    expect((b ?? 0) - (a ?? 0)).toBeGreaterThanOrEqual(90);
    expect((c ?? 0) - (b ?? 0)).toBeGreaterThanOrEqual(190);
    // Dead-lettered: failed, its last attempt recorded, nothing left to send (no other delivery, none pending).
    await expect.poll(() => log(s.id), { timeout: 5_000 }).toMatchObject([{ status: "failed", attempts: 3 }]);
    const dead = await log(s.id, "?status=failed");
    const detail = await api("GET", `/deliveries/${dead[0]?.id}`);
    expect(detail.body.attempts).toHaveLength(3);
    expect((detail.body.attempts as Array<{ responseExcerpt: string }>)[0]?.responseExcerpt).toBe("broken");
    expect(s.endpoint.received).toHaveLength(3);

    // Fixed: the owner redelivers from the dead letter.
    const eventId = s.endpoint.bodies()[0]?.id;
    s.endpoint.answer((_r, res) => res.writeHead(200).end());
    expect((await api("POST", `/deliveries/${dead[0]?.id}/redeliver`)).status).toBe(200);
    await waitFor(() => s.endpoint.received.length === 4);
    expect(s.endpoint.bodies()[3]?.id).toBe(eventId);
  });

  it("honours Retry-After when it asks for longer than the schedule", async () => {
    let calls = 0;
    const s = await subscribed((_r, res) => {
      calls++;
      if (calls === 1) res.writeHead(429, { "retry-after": "1" }).end();
      else res.writeHead(200).end();
    });
    await forwarded(s.key.id);
    await waitFor(() => s.endpoint.received.length === 2, 5_000, "the retry");
    const [a, b] = s.endpoint.received.map((r) => r.at);
    expect((b ?? 0) - (a ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("disables the subscription on 410 Gone with a reason the owner sees, and sends nothing more", async () => {
    const s = await subscribed((_r, res) => res.writeHead(410).end());
    await forwarded(s.key.id);
    await waitFor(() => s.endpoint.received.length === 1);
    await expect
      .poll(async () => (await api("GET", `/subscriptions/${s.id}`)).body, { timeout: 5_000 })
      .toMatchObject({ status: "disabled", disabledReason: expect.stringMatching(/410 Gone/) });
    // Positive control: another subscription of the same key, made now, wanting the same event.
    const control = await startReceiver();
    receivers.push(control);
    const other = await api("POST", "/subscriptions", {
      vendorKeyId: s.key.id,
      url: control.url,
      events: ["submission.forwarded"],
    });
    expect(other.status).toBe(201);
    await forwarded(s.key.id);
    // The event is fanned out in the settlement's commit: the control's delivery exists, and is sent; the disabled
    // subscription got no delivery to send.
    await expect.poll(async () => (await log(String(other.body.id))).map((d) => d.status)).toEqual(["delivered"]);
    expect(control.received).toHaveLength(1);
    expect((await log(s.id)).map((d) => d.attempts)).toEqual([1]);
    expect(s.endpoint.received).toHaveLength(1);
  });

  it("disables after sustained failure with the reason; re-enabling resumes what is pending", async () => {
    const s = await subscribed((_r, res) => res.writeHead(503).end());
    for (let i = 0; i < 3; i++) await forwarded(s.key.id);
    await expect
      .poll(async () => (await api("GET", `/subscriptions/${s.id}`)).body, { timeout: 5_000 })
      .toMatchObject({
        status: "disabled",
        disabledReason: expect.stringMatching(
          /no successful delivery since .* \(4 failed attempts in a row; last: HTTP 503\)/,
        ),
      });
    // Disabled with deliveries pending: the dispatcher passes them by even once they are due. An attempt it sent
    // before the subscription was disabled ends first (its outcome may take a delivery out of the pending list).
    await dispatcherIdle();
    const pending = await log(s.id, "?status=pending");
    expect(pending.length).toBeGreaterThan(0);
    const dueBy = Math.max(...pending.map((d) => Date.parse(String(d.nextAttemptAt))));
    await servedTwiceAfter(s.id, dueBy);
    expect(await log(s.id, "?status=pending")).toEqual(pending);
    const before = s.endpoint.received.length;
    expect((await log(s.id)).reduce((n, d) => n + d.attempts, 0)).toBe(before);

    s.endpoint.answer((_r, res) => res.writeHead(200).end());
    expect((await api("PATCH", `/subscriptions/${s.id}`, { status: "active" })).body.disabledReason).toBeNull();
    const range = await api("POST", `/subscriptions/${s.id}/redeliver`, {
      from: new Date(Date.now() - 60_000).toISOString(),
      to: new Date().toISOString(),
    });
    expect(range.status).toBe(200);
    await waitFor(
      () =>
        new Set(
          s.endpoint
            .bodies()
            .slice(before)
            .map((b) => b.id),
        ).size === 3,
      5_000,
      "all three events after re-enabling",
    );
  });
});

describe("§6 webhooks: one slow or dead endpoint does not delay deliveries to others", () => {
  it("delivers to a healthy endpoint at once while another never answers", async () => {
    const held: Array<() => void> = [];
    const slow = await subscribed((_r, res) => held.push(() => res.end()));
    const healthy = await subscribed();
    for (let i = 0; i < 20; i++) {
      await forwarded(slow.key.id);
      await forwarded(healthy.key.id);
    }
    await waitFor(() => healthy.endpoint.received.length === 20, 5_000, "healthy deliveries");
    // Not behind the slow endpoint: its requests are all still in flight (none answered, no outcome recorded).
    expect((await log(slow.id)).filter((d) => d.attempts > 0)).toEqual([]);
    // Each once: every healthy delivery answered after one attempt, nothing picked twice.
    await expect
      .poll(async () => (await log(healthy.id)).map((d) => [d.status, d.attempts]))
      .toEqual(Array(20).fill(["delivered", 1]));
    expect(healthy.endpoint.received).toHaveLength(20);
    expect(new Set(healthy.endpoint.bodies().map((b) => b.id)).size).toBe(20);
    // The dead endpoint holds at most its own lane (4 here) of the global cap.
    expect(slow.endpoint.received.length).toBeLessThanOrEqual(4);
    for (const release of held) release();
  });
});

describe("§6 webhooks: deliveries are durable; a restart resumes them", () => {
  it("sends deliveries left pending or in flight by a process that stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "webhooks-"));
    const databasePath = join(dir, "gateway.db");
    const masterKey = randomBytes(32).toString("hex");
    const endpoint = await startReceiver((_r, res) => res.writeHead(503).end());
    receivers.push(endpoint);
    try {
      const first = await startGateway({ databasePath, masterKey, webhooks: { retrySchedule: [60_000], jitter: 0 } });
      const company = await seedCompany(first.gateway, "Durable");
      const key = await company.issueKey({ partnerType: "lead_source" });
      const owner = ownerApi(first.url, await bearer(first.url, company.email));
      const subscribed = await owner("POST", "/subscriptions", {
        vendorKeyId: key.id,
        url: endpoint.url,
        events: ["submission.forwarded"],
      });
      for (let i = 0; i < 3; i++) {
        await settle(
          first.gateway,
          settledSubmission(company.company.id, key.id, {
            kind: "lead",
            status: "forwarded",
            result: { status: "created", leadId: `lead_durable_${i}` },
          }),
        );
      }
      await waitFor(() => endpoint.received.length === 3, 3_000, "first attempts");
      // The process stops sending, leaving what a crash leaves: one row claimed mid-attempt, the others pending.
      await first.gateway.webhooks.close();
      const { deliveries } = first.gateway.ctx.webhooks;
      const rows = await deliveriesOf(first.gateway, String(subscribed.body.id));
      expect(rows).toHaveLength(3);
      for (const [i, row] of rows.entries()) {
        await deliveries.update(row.id, { status: i === 0 ? "delivering" : "pending", nextAttemptAt: Date.now() });
      }
      await first.close();

      endpoint.answer((_r, res) => res.writeHead(200).end());
      const second = await startGateway({ databasePath, masterKey });
      try {
        await waitFor(() => endpoint.received.length === 6, 3_000, "resumed deliveries");
        const leads = endpoint
          .bodies()
          .slice(3)
          .map((b) => (b.data as { leadId: string }).leadId);
        expect(new Set(leads)).toEqual(new Set(["lead_durable_0", "lead_durable_1", "lead_durable_2"]));
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("§6 webhooks: deleting a subscription while a delivery is in flight", () => {
  it("records the other outcomes of the same batch and sends nothing more to the deleted one", async () => {
    const held: Array<() => void> = [];
    const doomed = await subscribed((_r, res) => held.push(() => res.writeHead(200).end()));
    const other = await subscribed((_r, res) => held.push(() => res.writeHead(200).end()));
    await forwarded(doomed.key.id);
    await forwarded(other.key.id);
    await waitFor(() => held.length === 2, 3_000, "both requests in flight");
    expect((await api("DELETE", `/subscriptions/${doomed.id}`)).status).toBe(200);
    for (const release of held) release();
    await expect.poll(() => log(other.id, "?status=delivered"), { timeout: 2_000 }).toHaveLength(1);
    expect(doomed.endpoint.received).toHaveLength(1);
  });
});

describe("§6 webhooks: closing the dispatcher", () => {
  /** A gateway with one subscription whose endpoint answers when the test says; `lead` settles a lead for it. */
  async function heldEndpoint(own: WebhookGateway) {
    const company = await seedCompany(own.gateway, "Stopping");
    const key = await company.issueKey({ partnerType: "lead_source" });
    const waiting: Array<() => void> = [];
    let hold = false;
    const endpoint = await startReceiver((_r, res) => {
      const answer = () => res.writeHead(200).end("ok");
      if (hold) waiting.push(answer);
      else answer();
    });
    receivers.push(endpoint);
    const owner = ownerApi(own.url, await bearer(own.url, company.email));
    const created = await owner("POST", "/subscriptions", {
      vendorKeyId: key.id,
      url: endpoint.url,
      events: ["submission.forwarded"],
    });
    const lead = (leadId: string) =>
      settle(
        own.gateway,
        settledSubmission(company.company.id, key.id, {
          kind: "lead",
          status: "forwarded",
          result: { status: "created", leadId },
        }),
      );
    return {
      endpoint,
      subscriptionId: String(created.body.id),
      release() {
        hold = false;
        for (const answer of waiting.splice(0)) answer();
      },
      lead,
      /** A lead's delivery sent and held unanswered: resolves once the endpoint has it. */
      async inFlight(leadId: string) {
        hold = true;
        const before = endpoint.received.length;
        await lead(leadId);
        await waitFor(() => endpoint.received.length === before + 1, 5_000, `the delivery of ${leadId} in flight`);
      },
    };
  }

  /** One attempt a delivery within a test, and a request timeout longer than any grace below. */
  const STOPPING = { retrySchedule: [60_000], jitter: 0, timeoutMs: 10_000 };

  it("waits for a pump that is reading a delivery, and sends nothing once closed", async () => {
    const own = await startGateway({ webhooks: { retrySchedule: [60_000], jitter: 0 } });
    try {
      const { endpoint, subscriptionId, lead } = await heldEndpoint(own);
      // Positive control: while open, a delivery goes out.
      await lead("lead_open");
      await waitFor(() => endpoint.received.length === 1, 5_000, "the first delivery");

      // The pump's next read of a delivery is held until the close has begun.
      const store = own.gateway.ctx.webhooks;
      const read = store.delivery.bind(store);
      let entered: () => void = () => undefined;
      let release: () => void = () => undefined;
      const reading = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let readDone: Promise<unknown> = Promise.resolve();
      store.delivery = (id) => {
        entered();
        readDone = held.then(() => read(id));
        return readDone as ReturnType<typeof read>;
      };
      await lead("lead_closing");
      await reading;

      let closed = false;
      const closing = own.gateway.webhooks.close().then(() => {
        closed = true;
      });
      // Two turns of the event loop: a close that does not wait for the pump has resolved by then.
      await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
      expect(closed).toBe(false);
      release();
      await closing;
      await readDone;
      await new Promise((resolve) => setImmediate(resolve));
      expect(own.gateway.webhooks.dispatcher?.stats().inFlight).toBe(0);
      expect(endpoint.received).toHaveLength(1);
      // Left pending, unsent, for the next start.
      const rows = await deliveriesOf(own.gateway, subscriptionId);
      expect(rows.map((r) => [r.status, r.attempts])).toEqual([
        ["pending", 0],
        ["delivered", 1],
      ]);
    } finally {
      await own.close();
    }
  });

  it("D-383: a delivery answered within the close's grace is recorded; one still unanswered at its end is left pending", async () => {
    const own = await startGateway({ webhooks: STOPPING });
    try {
      const held = await heldEndpoint(own);
      await held.inFlight("lead_in_flight");

      let closed = false;
      const closing = own.gateway.webhooks.close(10_000).then(() => {
        closed = true;
      });
      // The close waits for the answer: two turns of the event loop later it has not returned.
      await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
      expect(closed).toBe(false);
      held.release();
      await closing;
      // Recorded before the close returned: not pending, so no next start sends it again.
      const rows = await deliveriesOf(own.gateway, held.subscriptionId);
      expect(rows.map((r) => [r.status, r.attempts])).toEqual([["delivered", 1]]);
      expect(held.endpoint.received).toHaveLength(1);
    } finally {
      await own.close();
    }

    // The grace's end: an endpoint still silent is abandoned, its delivery pending for the next start.
    const late = await startGateway({ webhooks: STOPPING });
    try {
      const held = await heldEndpoint(late);
      await held.inFlight("lead_silent");
      await late.gateway.webhooks.close(100);
      const rows = await deliveriesOf(late.gateway, held.subscriptionId);
      expect(rows.map((r) => [r.status, r.attempts])).toEqual([["pending", 0]]);
      held.release();
    } finally {
      await late.close();
    }
  });

  it("D-383: a gateway stopped with a deadline records its deliveries in flight, and the next start sends none again", async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), "pg-webhook-stop-")), "gateway.db");
    const masterKey = randomBytes(32).toString("hex");
    const options = { databasePath, masterKey, webhooks: STOPPING };
    const own = await startGateway(options);
    const held = await heldEndpoint(own);
    try {
      // Positive control: an answered delivery, recorded as usual.
      await held.lead("lead_before");
      await waitFor(() => held.endpoint.received.length === 1, 5_000, "the first delivery");
      await held.inFlight("lead_at_stop");
      let stopped = false;
      await own.server.close();
      const stopping = own.gateway.close(10_000).then(() => {
        stopped = true;
      });
      await waitFor(() => own.gateway.webhooks.dispatcher?.stats().inFlight === 1, 5_000, "the stop under way");
      expect(stopped).toBe(false);
      held.release();
      await stopping;
    } finally {
      held.release();
    }
    const again = await startGateway(options);
    try {
      const rows = await deliveriesOf(again.gateway, held.subscriptionId);
      expect(rows.map((r) => [r.status, r.attempts])).toEqual([
        ["delivered", 1],
        ["delivered", 1],
      ]);
      expect(held.endpoint.received).toHaveLength(2);
    } finally {
      await again.close();
      rmSync(databasePath, { force: true });
    }
  });
});
