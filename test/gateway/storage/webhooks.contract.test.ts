import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openGatewayDb } from "../../../src/db/client.js";
import { openPostgres } from "../../../src/db/postgres.js";
import { postgresStorage } from "../../../src/gateway/storage/postgres.js";
import { postgresSqlOn } from "../../../src/gateway/storage/sql/postgres.js";
import { sqliteStorage } from "../../../src/gateway/storage/transaction.js";
import {
  type AttemptOutcome,
  type NewWebhookAttempt,
  type NewWebhookDelivery,
  type NewWebhookEvent,
  type NewWebhookSubscription,
  sqlWebhookStore,
  type WebhookStore,
} from "../../../src/gateway/storage/webhooks/index.js";
import { newId } from "../../../src/ids.js";
import { POSTGRES_ADMIN_URL, postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";

// One suite of cases for the webhooks record on both databases (D-221, D-243…D-246, D-275), then what only PostgreSQL
// has to show: several processes (two pools on one database) at once.

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

const SEED = `
  INSERT INTO companies (id, name, created_at) VALUES ('co_a', 'A', '2026-01-01T00:00:00.000Z'),
    ('co_b', 'B', '2026-01-01T00:00:00.000Z');
  INSERT INTO upstream_credentials (id, company_id, name, key_prefix, sealed, created_at) VALUES
    ('cred_a', 'co_a', 'a', 'pk', 'sealed', '2026-01-01T00:00:00.000Z'),
    ('cred_b', 'co_b', 'b', 'pk', 'sealed', '2026-01-01T00:00:00.000Z');
  INSERT INTO vendor_keys (id, company_id, name, partner_type, scopes, credential_id, secret_digest, created_at) VALUES
    ('vk_a', 'co_a', 'a', 'booking_vendor', '[]', 'cred_a', 'd', '2026-01-01T00:00:00.000Z'),
    ('vk_a2', 'co_a', 'a2', 'lead_source', '[]', 'cred_a', 'd', '2026-01-01T00:00:00.000Z'),
    ('vk_b', 'co_b', 'b', 'booking_vendor', '[]', 'cred_b', 'd', '2026-01-01T00:00:00.000Z');`;

const WEBHOOK_TABLES = [
  "webhook_attempts",
  "webhook_deliveries",
  "webhook_events",
  "webhook_subscriptions",
  "platform_events",
  "platform_deliveries",
  "platform_webhook_secrets",
  "sourced_leads",
  "booked_appointments",
];

interface Harness {
  store: WebhookStore;
  /** A read for the test's own checks (portable SQL). */
  rows(text: string): Promise<Record<string, unknown>[]>;
}

let sequence = 0;

function subscription(fields: Partial<NewWebhookSubscription> = {}, at = T0 + sequence++): NewWebhookSubscription {
  return {
    id: newId("whs", at),
    companyId: "co_a",
    vendorKeyId: "vk_a",
    url: "https://vendor.example/hooks",
    events: ["appointment.booked"],
    sealedSecrets: "sealed",
    outboundProfileVersionId: null,
    status: "active",
    createdAt: iso(at),
    updatedAt: iso(at),
    ...fields,
  };
}

function event(fields: Partial<Omit<NewWebhookEvent, "envelope">> = {}, at = T0): NewWebhookEvent {
  const id = fields.id ?? newId("evt", at + sequence++);
  return {
    id,
    companyId: "co_a",
    event: "appointment.booked",
    createdAt: iso(at),
    ...fields,
    envelope: () => JSON.stringify({ id, event: "appointment.booked", data: { customer: { name: "Ann" } } }),
  };
}

function delivery(subscriptionId: string, dedupeKey: string, at = T0, nextAttemptAt = at): NewWebhookDelivery {
  return {
    id: newId("whd", at),
    subscriptionId,
    dedupeKey,
    sourceEventId: null,
    nextAttemptAt,
    createdAt: iso(at),
    createdAtMs: at,
  };
}

function attempt(deliveryRowId: string, n: number, status: number | null): NewWebhookAttempt {
  return {
    id: newId("wha", T0 + n),
    deliveryRowId,
    attempt: n,
    deliveryId: `dlv_${n}`,
    secretVersion: 1,
    startedAt: iso(T0 + n),
    status,
    error: status === null ? "timeout" : null,
    responseExcerpt: "ok",
    latencyMs: 12,
  };
}

function outcome(fields: Partial<AttemptOutcome> = {}): AttemptOutcome {
  return {
    status: "delivered",
    attempts: 1,
    lastStatus: 200,
    lastError: null,
    body: '{"mapped":true}',
    profileVersionId: null,
    retryIndex: 0,
    nextAttemptAt: T0,
    deliveredAt: iso(T0 + 1),
    failedAt: null,
    ...fields,
  };
}

/** A subscription with one pending delivery of one event: ids of all three. */
async function oneDelivery(store: WebhookStore, dedupeKey = `appointment:apt_${sequence++}:created`, at = T0) {
  const sub = subscription();
  await store.subscriptions.insert(sub);
  const e = event({}, at);
  const d = delivery(sub.id, dedupeKey, at);
  expect(await store.insertDeliveries(e, [d])).toEqual([d.id]);
  return { subscriptionId: sub.id, eventId: e.id, deliveryId: d.id };
}

function contractCases(harness: () => Harness) {
  const store = () => harness().store;

  describe("subscriptions", () => {
    it("reads back what was inserted, with the SQLite row's types; another company's is not found", async () => {
      const sub = subscription({ events: ["appointment.booked", "install.test"] });
      await store().subscriptions.insert(sub);
      expect(await store().subscriptions.getOfCompany(sub.id, "co_a")).toEqual({
        ...sub,
        disabledReason: null,
        disabledAt: null,
        consecutiveFailures: 0,
        failingSince: null,
        pausedUntil: null,
      });
      expect(await store().subscriptions.getOfCompany(sub.id, "co_b")).toBeUndefined();
      expect(await store().subscription(sub.id)).toEqual(await store().subscriptions.getOfCompany(sub.id, "co_a"));
    });

    it("lists a company's subscriptions newest first, of one key when given; updates and deletes", async () => {
      const older = subscription({}, T0);
      const newer = subscription({ vendorKeyId: "vk_a2" }, T0 + 1_000);
      const other = subscription({ companyId: "co_b", vendorKeyId: "vk_b" });
      for (const s of [older, newer, other]) await store().subscriptions.insert(s);
      expect((await store().subscriptions.listOfCompany("co_a")).map((s) => s.id)).toEqual([newer.id, older.id]);
      expect((await store().subscriptions.listOfCompany("co_a", "vk_a2")).map((s) => s.id)).toEqual([newer.id]);
      await store().subscriptions.update(older.id, { url: "https://vendor.example/v2", pausedUntil: T0 + 5 });
      expect(await store().subscription(older.id)).toMatchObject({
        url: "https://vendor.example/v2",
        pausedUntil: T0 + 5,
      });
      await store().subscriptions.delete(older.id);
      expect(await store().subscription(older.id)).toBeUndefined();
      expect(await store().subscription(newer.id)).toBeDefined();
    });

    it("fan-out's targets are the key's active subscriptions in its company", async () => {
      const active = subscription();
      const disabled = subscription({ status: "disabled" });
      const otherKey = subscription({ vendorKeyId: "vk_a2" });
      for (const s of [active, disabled, otherKey]) await store().subscriptions.insert(s);
      expect(await store().targets("vk_a", "co_a")).toEqual([
        { id: active.id, events: ["appointment.booked"], createdAt: active.createdAt },
      ]);
      expect(await store().targets("vk_a", "co_b")).toEqual([]);
    });
  });

  describe("fan-out: events and deliveries", () => {
    it("inserts the deliveries and the envelope once; a repeat of the same dedupe keys inserts nothing", async () => {
      const subs = [subscription(), subscription(), subscription()];
      for (const s of subs) await store().subscriptions.insert(s);
      const first = event();
      const deliveries = subs.map((s, i) => delivery(s.id, "appointment:apt_1:created", T0 + i));
      expect(await store().insertDeliveries(first, deliveries)).toEqual(deliveries.map((d) => d.id));
      expect(await store().deliveries.envelopeOf(first.id)).toContain('"Ann"');

      // The same hook again: a new event id, the same keys.
      const again = event();
      const repeated = subs.map((s) => delivery(s.id, "appointment:apt_1:created", T0 + 10));
      expect(await store().insertDeliveries(again, repeated)).toEqual([]);
      expect(await store().deliveries.envelopeOf(again.id)).toBeUndefined();
      // Positive control: one new subscription among known ones gets its delivery and the new event its envelope.
      const late = subscription();
      await store().subscriptions.insert(late);
      const third = event();
      const mixed = [...repeated, delivery(late.id, "appointment:apt_1:created", T0 + 20)];
      expect(await store().insertDeliveries(third, mixed)).toEqual([mixed[3]?.id]);
      expect(await store().deliveries.envelopeOf(third.id)).toBeDefined();
      expect(await harness().rows("SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_deliveries")).toEqual([{ n: 4 }]);
    });

    it("a delivery reads back with its envelope and the SQLite row's types", async () => {
      const { deliveryId, eventId, subscriptionId } = await oneDelivery(store(), "submission:sub_1:forwarded");
      expect(await store().delivery(deliveryId)).toEqual({
        id: deliveryId,
        companyId: "co_a",
        subscriptionId,
        eventId,
        event: "appointment.booked",
        dedupeKey: "submission:sub_1:forwarded",
        sourceEventId: null,
        body: null,
        profileVersionId: null,
        status: "pending",
        attempts: 0,
        retryIndex: 0,
        nextAttemptAt: T0,
        lastStatus: null,
        lastError: null,
        createdAt: iso(T0),
        createdAtMs: T0,
        deliveredAt: null,
        failedAt: null,
        envelope: JSON.stringify({ id: eventId, event: "appointment.booked", data: { customer: { name: "Ann" } } }),
        // No trace asked for (docs/tracing.md): its attempts' spans, with tracing on, start a trace of their own.
        traceParent: null,
      });
      expect(await store().delivery("whd_missing")).toBeUndefined();
    });

    it("the queue head is the subscription's pending deliveries, oldest due first, ties in creation order", async () => {
      const sub = subscription();
      const other = subscription();
      await store().subscriptions.insert(sub);
      await store().subscriptions.insert(other);
      const due = [T0 + 300, T0 + 100, T0 + 200, T0 + 100];
      const rows = due.map((at, i) => delivery(sub.id, `k:${i}`, T0 + i, at));
      await store().insertDeliveries(event(), [...rows, delivery(other.id, "k:other", T0, T0)]);
      await store().deliveries.update(rows[2]?.id as string, { status: "delivered" });
      expect(await store().queueHead(sub.id, 10)).toEqual([
        { id: rows[1]?.id, nextAttemptAt: T0 + 100 },
        { id: rows[3]?.id, nextAttemptAt: T0 + 100 },
        { id: rows[0]?.id, nextAttemptAt: T0 + 300 },
      ]);
      expect(await store().queueHead(sub.id, 1)).toEqual([{ id: rows[1]?.id, nextAttemptAt: T0 + 100 }]);
      expect(await store().deliveries.backlog()).toEqual(
        expect.arrayContaining([
          { subscriptionId: sub.id, due: T0 + 100 },
          { subscriptionId: other.id, due: T0 },
        ]),
      );
    });
  });

  describe("attempts and outcomes", () => {
    it("records an attempt and its outcome; a body once set is kept", async () => {
      const { deliveryId } = await oneDelivery(store());
      const attempts = [attempt(deliveryId, 1, 503), attempt(deliveryId, 2, 200)] as const;
      await store().recordAttempt(
        attempts[0],
        outcome({
          status: "pending",
          lastStatus: 503,
          body: "first",
          retryIndex: 1,
          nextAttemptAt: T0 + 60_000,
          deliveredAt: null,
        }),
      );
      await store().recordAttempt(attempts[1], outcome({ attempts: 2, body: "second" }));
      expect(await store().deliveries.attemptsOf(deliveryId)).toEqual(attempts);
      expect(await store().delivery(deliveryId)).toMatchObject({
        status: "delivered",
        attempts: 2,
        lastStatus: 200,
        body: "first",
        retryIndex: 0,
        nextAttemptAt: T0,
        deliveredAt: iso(T0 + 1),
      });
    });

    it("records nothing for a delivery that went with its subscription", async () => {
      const { deliveryId, subscriptionId } = await oneDelivery(store());
      await store().subscriptions.delete(subscriptionId);
      await store().recordAttempt(attempt(deliveryId, 1, 200), outcome());
      expect(await store().deliveries.attemptsOf(deliveryId)).toEqual([]);
      expect(await store().delivery(deliveryId)).toBeUndefined();
    });

    it("counts an endpoint's failures and clears them after a success", async () => {
      const { subscriptionId } = await oneDelivery(store());
      expect(await store().endpointFailed(subscriptionId, T0, null)).toEqual({
        consecutiveFailures: 1,
        failingSince: T0,
        status: "active",
      });
      expect(await store().endpointFailed(subscriptionId, T0 + 10, T0 + 99)).toEqual({
        consecutiveFailures: 2,
        failingSince: T0,
        status: "active",
      });
      expect(await store().subscription(subscriptionId)).toMatchObject({ pausedUntil: T0 + 99 });
      await store().endpointSucceeded(subscriptionId);
      expect(await store().subscription(subscriptionId)).toMatchObject({
        consecutiveFailures: 0,
        failingSince: null,
        pausedUntil: null,
      });
      expect(await store().endpointFailed("whs_missing", T0, null)).toBeUndefined();
    });
  });

  describe("the owner's delivery log and redelivery", () => {
    it("pages a subscription's deliveries by status newest first, counts them, and finds one of the company's", async () => {
      const sub = subscription();
      await store().subscriptions.insert(sub);
      const rows = [0, 1, 2].map((i) => delivery(sub.id, `k:${i}`, T0 + i * 1_000));
      await store().insertDeliveries(event(), rows);
      await store().deliveries.update(rows[0]?.id as string, { status: "failed", failedAt: iso(T0) });
      const pending = await store().deliveries.pageOf(sub.id, "pending", undefined, 10);
      expect(pending.map((r) => r.id)).toEqual([rows[2]?.id, rows[1]?.id]);
      expect((await store().deliveries.pageOf(sub.id, "pending", rows[2]?.id, 10)).map((r) => r.id)).toEqual([
        rows[1]?.id,
      ]);
      expect(await store().subscriptions.deliveryCounts(sub.id)).toEqual({
        pending: 2,
        delivering: 0,
        delivered: 0,
        failed: 1,
      });
      expect(await store().deliveries.getOfCompany(rows[0]?.id as string, "co_a")).toMatchObject({ status: "failed" });
      expect(await store().deliveries.getOfCompany(rows[0]?.id as string, "co_b")).toBeUndefined();
    });

    it("resets a time range of finished deliveries, never a pending one", async () => {
      const sub = subscription();
      await store().subscriptions.insert(sub);
      const rows = [0, 1, 2, 3].map((i) => delivery(sub.id, `k:${i}`, T0 + i * 1_000));
      await store().insertDeliveries(event(), rows);
      for (const i of [0, 1, 3]) await store().deliveries.update(rows[i]?.id as string, { status: "failed" });
      const reset = await store().deliveries.resetRange(
        sub.id,
        ["failed", "pending"],
        new Date(T0 + 1_000),
        new Date(T0 + 3_000),
        { status: "pending", retryIndex: 0, nextAttemptAt: T0 + 9 },
      );
      expect(reset).toBe(2);
      expect((await store().delivery(rows[0]?.id as string))?.status).toBe("failed");
      expect(await store().delivery(rows[3]?.id as string)).toMatchObject({ status: "pending", nextAttemptAt: T0 + 9 });
      expect((await store().delivery(rows[2]?.id as string))?.nextAttemptAt).toBe(T0 + 2_000);
    });

    it("makes `delivering` rows pending again at start, and disables an active subscription", async () => {
      const { deliveryId, subscriptionId } = await oneDelivery(store());
      await store().deliveries.update(deliveryId, { status: "delivering" });
      await store().deliveries.resumeDelivering();
      expect((await store().delivery(deliveryId))?.status).toBe("pending");
      await store().deliveries.disableSubscription(subscriptionId, "gone", iso(T0 + 5));
      expect(await store().subscription(subscriptionId)).toMatchObject({
        status: "disabled",
        disabledReason: "gone",
        disabledAt: iso(T0 + 5),
      });
      expect(await store().targets("vk_a", "co_a")).toEqual([]);
    });

    it("an erasure drops the bodies and excerpts of the person's deliveries and redacts their events", async () => {
      const mine = await oneDelivery(store(), "submission:sub_1x:forwarded");
      const otherDelivery = await oneDelivery(store(), "submission:sub_1xy:forwarded");
      await store().recordAttempt(attempt(mine.deliveryId, 1, 500), outcome({ status: "pending", body: "mapped" }));
      await store().recordAttempt(
        attempt(otherDelivery.deliveryId, 1, 500),
        outcome({ status: "pending", body: "mapped" }),
      );
      const erased = await store().deliveries.eraseDeliveries("co_a", ["submission:sub_1x:"], () => "{}");
      expect(erased).toEqual({ webhookEvents: 1, pendingDeliveries: 1 });
      expect(await store().delivery(mine.deliveryId)).toMatchObject({ body: null, envelope: "{}" });
      expect((await store().deliveries.attemptsOf(mine.deliveryId))[0]?.responseExcerpt).toBeNull();
      // Positive control: a key that only shares the prefix's characters without its `:` is untouched.
      expect(await store().delivery(otherDelivery.deliveryId)).toMatchObject({ body: "mapped" });
      expect(await store().delivery(otherDelivery.deliveryId)).not.toMatchObject({ envelope: "{}" });
      expect(await store().deliveries.eraseDeliveries("co_b", ["submission:sub_1xy:"], () => "{}")).toEqual({
        webhookEvents: 0,
        pendingDeliveries: 0,
      });
    });
  });

  describe("§6.6 platform events received and the replay store", () => {
    it("keeps a company's sealed secrets, replaced on save", async () => {
      expect(await store().platformEvents.sealedSecrets("co_a")).toBeUndefined();
      await store().platformEvents.saveSealedSecrets("co_a", "ring-1", iso(T0));
      await store().platformEvents.saveSealedSecrets("co_a", "ring-2", iso(T0 + 1));
      expect(await store().platformEvents.sealedSecrets("co_a")).toBe("ring-2");
      expect(await store().platformEvents.sealedSecrets("co_b")).toBeUndefined();
    });

    it("stores a received event once; lists newest first; marks it processed", async () => {
      const replay = store().replayStore("co_a");
      expect(await replay.isEventProcessed("evt_p1")).toBe(false);
      expect(await store().platformEvents.insert(platformEvent("evt_p1", T0))).toBe(true);
      expect(await store().platformEvents.insert(platformEvent("evt_p1", T0 + 5))).toBe(false);
      expect(await store().platformEvents.insert(platformEvent("evt_p2", T0 + 10))).toBe(true);
      await store().platformEvents.setFannedOut("co_a", "evt_p1", 3);
      const listed = await store().platformEvents.list("co_a", 10);
      expect(listed.map((e) => [e.id, e.fannedOut])).toEqual([
        ["evt_p2", 0],
        ["evt_p1", 3],
      ]);
      expect(listed[1]).toEqual({
        id: "evt_p1",
        event: "appointment.booked",
        resourceType: "appointment",
        resourceId: "apt_evt_p1",
        resourceVersion: 1,
        occurredAt: iso(T0),
        receivedAt: iso(T0),
        deliveryId: "dlv_evt_p1",
        fannedOut: 3,
      });
      expect(await replay.isEventProcessed("evt_p1")).toBe(true);
      expect(await store().replayStore("co_b").isEventProcessed("evt_p1")).toBe(false);
      // The raw body as stored, for that company only.
      expect(await store().platformEvents.bodyOf("co_a", "evt_p1")).toBe(platformEvent("evt_p1", T0).body);
      expect(await store().platformEvents.bodyOf("co_b", "evt_p1")).toBeUndefined();
    });

    it("refuses a delivery id seen twice within its window, per company; forgets it once expired", async () => {
      const replay = store().replayStore("co_a");
      expect(await replay.rememberDelivery("dlv_1", 1_000)).toBe(true);
      expect(await replay.rememberDelivery("dlv_1", 1_000)).toBe(false);
      expect(await store().replayStore("co_b").rememberDelivery("dlv_1", 1_000)).toBe(true);
      expect(await replay.rememberDelivery("dlv_2", 2_000)).toBe(true);
      expect(await store().purgePlatformDeliveries(1_500)).toBe(2);
      expect(await replay.rememberDelivery("dlv_1", 3_000)).toBe(true);
      // Positive control: the one not yet expired is still refused.
      expect(await replay.rememberDelivery("dlv_2", 2_000)).toBe(false);
    });

    it("rewrites the bodies an erasure redacts, over several steps", async () => {
      for (let i = 0; i < 7; i++) await store().platformEvents.insert(platformEvent(`evt_r${i}`, T0 + (i % 3)));
      await store().platformEvents.insert({ ...platformEvent("evt_other", T0), companyId: "co_b" });
      const seen: string[] = [];
      const rewritten = await store().platformEvents.rewriteBodies("co_a", 2, (row) => {
        seen.push(row.resourceId);
        return row.resourceId.endsWith("1") || row.resourceId.endsWith("4") ? "{}" : undefined;
      });
      expect(rewritten).toBe(2);
      expect(seen.sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `apt_evt_r${i}`));
      const bodies = await harness().rows("SELECT id, body FROM platform_events WHERE body = '{}' ORDER BY id");
      expect(bodies).toEqual([
        { id: "evt_r1", body: "{}" },
        { id: "evt_r4", body: "{}" },
      ]);
    });
  });

  describe("routing (§1)", () => {
    it("the first key that created a lead stays its source; the contact follows the latest submission", async () => {
      const routing = store().routing;
      await routing.rememberLead(
        { companyId: "co_a", leadId: "lead_1", source: null, submissionId: "sub_02" },
        iso(T0),
      );
      expect(await routing.sourceOf("co_a", "lead_1")).toBeUndefined();
      await routing.rememberLead(
        { companyId: "co_a", leadId: "lead_1", source: "vk_a2", submissionId: "sub_01" },
        iso(T0),
      );
      await routing.rememberLead(
        { companyId: "co_a", leadId: "lead_1", source: "vk_a", submissionId: "sub_03" },
        iso(T0),
      );
      expect(await routing.sourceOf("co_a", "lead_1")).toBe("vk_a2");
      expect(await routing.contactSubmissionOf("co_a", "lead_1")).toBe("sub_03");
      await routing.rememberLead(
        { companyId: "co_a", leadId: "lead_1", source: null, submissionId: "sub_02" },
        iso(T0),
      );
      expect(await routing.contactSubmissionOf("co_a", "lead_1")).toBe("sub_03");
      expect(await routing.contactSubmissionOf("co_b", "lead_1")).toBeUndefined();
    });

    it("the first booking of an appointment stays; a company's bookings are listed", async () => {
      const routing = store().routing;
      const booking = { companyId: "co_a", appointmentId: "apt_1", submissionId: "sub_1", leadId: "lead_1" };
      await routing.rememberBooking({ ...booking, vendorKeyId: "vk_a", createdAt: iso(T0) });
      await routing.rememberBooking({ ...booking, vendorKeyId: "vk_a2", createdAt: iso(T0 + 1) });
      await routing.rememberBooking({
        ...booking,
        appointmentId: "apt_2",
        leadId: null,
        vendorKeyId: "vk_a",
        createdAt: iso(T0),
      });
      expect(await routing.bookerOf("co_a", "apt_1")).toBe("vk_a");
      expect(await routing.bookerOf("co_b", "apt_1")).toBeUndefined();
      expect((await routing.bookingsOf("co_a")).sort((a, b) => a.appointmentId.localeCompare(b.appointmentId))).toEqual(
        [
          { appointmentId: "apt_1", leadId: "lead_1" },
          { appointmentId: "apt_2", leadId: null },
        ],
      );
    });
  });

  describe("retention purge", () => {
    it("removes exactly the finished history older than the cutoff, and the given companies' platform events", async () => {
      const cutoff = T0 + 10_000;
      const sub = subscription();
      await store().subscriptions.insert(sub);
      const oldDone = delivery(sub.id, "old:done", T0);
      const oldFailed = delivery(sub.id, "old:failed", T0 + 1);
      const oldPending = delivery(sub.id, "old:pending", T0 + 2);
      const newDone = delivery(sub.id, "new:done", cutoff + 1);
      const oldEvent = event({}, T0);
      const oldPendingEvent = event({}, T0);
      const newEvent = event({}, cutoff + 1);
      await store().insertDeliveries(oldEvent, [oldDone, oldFailed]);
      await store().insertDeliveries(oldPendingEvent, [oldPending]);
      await store().insertDeliveries(newEvent, [newDone]);
      await store().recordAttempt(attempt(oldDone.id, 1, 200), outcome());
      await store().recordAttempt(attempt(newDone.id, 2, 200), outcome());
      await store().deliveries.update(oldFailed.id, { status: "failed" });
      await store().deliveries.update(newDone.id, { status: "delivered" });
      await store().platformEvents.insert(platformEvent("evt_old_a", T0));
      await store().platformEvents.insert(platformEvent("evt_new_a", cutoff));
      await store().platformEvents.insert({ ...platformEvent("evt_old_b", T0), companyId: "co_b" });

      expect(await store().purgeHistory(cutoff, ["co_a"])).toEqual({
        webhookDeliveries: 2,
        webhookEvents: 1,
        platformEvents: 1,
      });
      expect(await store().delivery(oldDone.id)).toBeUndefined();
      expect(await store().delivery(oldFailed.id)).toBeUndefined();
      expect(await store().deliveries.attemptsOf(oldDone.id)).toEqual([]);
      expect(await store().deliveries.envelopeOf(oldEvent.id)).toBeUndefined();
      // What stays: the old pending delivery with its event, everything newer, another company's platform event.
      expect(await store().delivery(oldPending.id)).toMatchObject({ status: "pending" });
      expect(await store().delivery(newDone.id)).toMatchObject({ status: "delivered" });
      expect(await store().deliveries.attemptsOf(newDone.id)).toHaveLength(1);
      expect((await store().platformEvents.list("co_a", 10)).map((e) => e.id)).toEqual(["evt_new_a"]);
      expect((await store().platformEvents.list("co_b", 10)).map((e) => e.id)).toEqual(["evt_old_b"]);
      expect(await store().purgeHistory(cutoff, ["co_a", "co_b"])).toEqual({
        webhookDeliveries: 0,
        webhookEvents: 0,
        platformEvents: 1,
      });
    });
  });
}

function platformEvent(id: string, receivedMs: number) {
  return {
    companyId: "co_a",
    id,
    event: "appointment.booked",
    resourceType: "appointment",
    resourceId: `apt_${id}`,
    resourceVersion: 1,
    occurredAt: iso(receivedMs),
    body: JSON.stringify({ id, data: { customer: { name: "Ann" } } }),
    deliveryId: `dlv_${id}`,
    fannedOut: 0,
    receivedAt: iso(receivedMs),
  };
}

describe("WebhookStore on SQLite", () => {
  let dir: string;
  let database: ReturnType<typeof openGatewayDb>;
  let current: Harness;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pgw-webhooks-"));
    database = openGatewayDb(join(dir, "gateway.db"));
    database.sqlite.exec(SEED);
    const sqlite = database.sqlite;
    current = {
      store: sqliteStorage(database).webhooks,
      rows: async (text) => sqlite.prepare(text).all() as Record<string, unknown>[],
    };
  });

  afterEach(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  contractCases(() => current);
});

const available = await postgresAvailable();

describe.skipIf(!available)("WebhookStore on PostgreSQL", () => {
  const database = usePostgresDatabase();
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  let current: Harness;
  // The context's store of each "process": one per pool.
  let storageA: ReturnType<typeof postgresStorage>;
  let storageB: ReturnType<typeof postgresStorage>;
  let storeA: WebhookStore;
  let storeB: WebhookStore;

  beforeAll(async () => {
    poolA = (await openPostgres(database.url, { migrate: false, poolMax: 4 })).pool;
    poolB = (await openPostgres(database.url, { migrate: false, poolMax: 4 })).pool;
    await poolA.query(SEED);
    storageA = postgresStorage(poolA);
    storageB = postgresStorage(poolB);
    storeA = storageA.webhooks;
    storeB = storageB.webhooks;
  });

  afterAll(async () => {
    await storageA?.close();
    await storageB?.close();
    await poolA?.end();
    await poolB?.end();
  });

  beforeEach(async () => {
    await poolA.query(`TRUNCATE ${WEBHOOK_TABLES.join(", ")}`);
    current = { store: storeA, rows: async (text) => (await poolA.query(text)).rows };
  });

  contractCases(() => current);

  describe("several processes", () => {
    it("§6.6: a delivery id received by two processes at once is new for exactly one of them", async () => {
      for (let round = 0; round < 20; round++) {
        const id = `dlv_race_${round}`;
        const results = await Promise.all([
          storeA.replayStore("co_a").rememberDelivery(id, 9_999_999_999),
          storeB.replayStore("co_a").rememberDelivery(id, 9_999_999_999),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
      }
      const { rows } = await poolA.query("SELECT count(*)::int AS n FROM platform_deliveries");
      expect(rows).toEqual([{ n: 20 }]);
    });

    it("§6.6: a replay waits for the first receipt's transaction, refused once it commits, accepted if it rolls back", async () => {
      const client = await poolA.connect();
      try {
        for (const end of ["ROLLBACK", "COMMIT"] as const) {
          await client.query("BEGIN");
          const first = storeOn(client);
          expect(await first.replayStore("co_a").rememberDelivery(`dlv_tx_${end}`, 9_999_999_999)).toBe(true);
          let settled = false;
          const second = Promise.resolve(
            storeB.replayStore("co_a").rememberDelivery(`dlv_tx_${end}`, 9_999_999_999),
          ).finally(() => {
            settled = true;
          });
          // The second insert is blocked on the first one's row lock until that transaction ends.
          await expect.poll(() => waitingOnLock(poolA)).toBe(true);
          expect(settled).toBe(false);
          await client.query(end);
          expect(await second).toBe(end === "ROLLBACK");
        }
      } finally {
        client.release();
      }
    });

    it("the same delivery (dedupe key) inserted by two processes at once is one row", async () => {
      const sub = subscription();
      await storeA.subscriptions.insert(sub);
      for (let round = 0; round < 20; round++) {
        const key = `appointment:apt_race_${round}:created`;
        const [a, b] = await Promise.all([
          storeA.insertDeliveries(event(), [delivery(sub.id, key)]),
          storeB.insertDeliveries(event(), [delivery(sub.id, key)]),
        ]);
        expect([...a, ...b]).toHaveLength(1);
      }
      const { rows } = await poolA.query(
        "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM webhook_deliveries",
      );
      expect(rows).toEqual([{ n: 20, events: 20 }]);
      // Every delivery has its envelope; no envelope was stored for the losing insert.
      const orphans = await poolA.query(
        "SELECT count(*)::int AS n FROM webhook_events e WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)",
      );
      expect(orphans.rows).toEqual([{ n: 0 }]);
      expect((await poolA.query("SELECT count(*)::int AS n FROM webhook_events")).rows).toEqual([{ n: 20 }]);
    });

    it("a fan-out inside a transaction that rolls back leaves neither its deliveries nor its envelope", async () => {
      const sub = subscription();
      await storeA.subscriptions.insert(sub);
      const client = await poolA.connect();
      const e = event();
      const d = delivery(sub.id, "appointment:apt_tx:created");
      try {
        await client.query("BEGIN");
        const inside = storeOn(client);
        expect(await inside.insertDeliveries(e, [d])).toEqual([d.id]);
        // Not visible to the other process before the commit.
        expect(await storeB.delivery(d.id)).toBeUndefined();
        await client.query("ROLLBACK");
      } finally {
        client.release();
      }
      expect(await storeB.delivery(d.id)).toBeUndefined();
      expect(await storeB.deliveries.envelopeOf(e.id)).toBeUndefined();
      // Positive control: the same fan-out outside a transaction is there.
      expect(await storeA.insertDeliveries(e, [d])).toEqual([d.id]);
      expect(await storeB.delivery(d.id)).toMatchObject({ id: d.id });
    });

    it("two processes fanning out overlapping keys in different orders both finish (no deadlock)", async () => {
      // Enough rows that the two statements overlap: without one insertion order (store.ts) this deadlocks.
      const subs = Array.from({ length: 300 }, () => subscription());
      await Promise.all(subs.map((s) => storeA.subscriptions.insert(s)));
      for (let round = 0; round < 5; round++) {
        const key = `appointment:apt_order_${round}:created`;
        const forward = subs.map((s) => delivery(s.id, key));
        const backward = [...subs].reverse().map((s) => delivery(s.id, key));
        const [a, b] = await Promise.all([
          inTransaction(poolA, (store) => store.insertDeliveries(event(), forward)),
          inTransaction(poolB, (store) => store.insertDeliveries(event(), backward)),
        ]);
        expect(a.length + b.length).toBe(subs.length);
      }
    });
  });
});

describe.skipIf(!available)("WebhookStore on PostgreSQL with a linguistic collation (D-246)", () => {
  const name = `pgw_icu_${Date.now().toString(36)}`;
  let pool: pg.Pool | undefined;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C.UTF-8'`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    pool = (await openPostgres(url.toString(), { poolMax: 2 })).pool;
    await pool.query(SEED);
  });

  afterAll(async () => {
    await pool?.end();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it("an erasure finds the person's deliveries by dedupe key prefix, where the keys are not one range", async () => {
    if (!pool) throw new Error("no pool");
    // The reason for the other query: here `prefix:` … `prefix;` is not the range of the keys with the prefix.
    const { rows } = await pool.query("SELECT 'submission:sub_1x:forwarded' < 'submission:sub_1x;' AS inside");
    expect(rows).toEqual([{ inside: false }]);
    const storage = postgresStorage(pool);
    try {
      const store = storage.webhooks;
      const mine = await oneDelivery(store, "submission:sub_1x:forwarded");
      const other = await oneDelivery(store, "submission:sub_1xy:forwarded");
      expect(await store.deliveries.eraseDeliveries("co_a", ["submission:sub_1x:"], () => "{}")).toEqual({
        webhookEvents: 1,
        pendingDeliveries: 1,
      });
      expect(await store.delivery(mine.deliveryId)).toMatchObject({ envelope: "{}" });
      expect(await store.delivery(other.deliveryId)).not.toMatchObject({ envelope: "{}" });
    } finally {
      await storage.close();
    }
  });
});

/** Whether some session of the database waits on a lock (the second insert behind the first one's row). */
async function waitingOnLock(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return rows[0]?.n > 0;
}

/** The store bound to a transaction the test opened on `client` (as the storage factory binds a transaction's). */
function storeOn(client: pg.PoolClient): WebhookStore {
  const db = postgresSqlOn(client);
  return sqlWebhookStore({ db, dialect: "postgres", inTransaction: true, atomically: (work) => work(db) });
}

async function inTransaction<T>(pool: pg.Pool, work: (store: WebhookStore) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(storeOn(client));
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}
