import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { openGatewayDb } from "../../../src/db/client.js";
import { openPostgres } from "../../../src/db/postgres.js";
import { postgresStorage } from "../../../src/gateway/storage/postgres.js";
import {
  ERASURE_CHUNK,
  type SubmissionRow,
  type SubmissionStore,
  submissionRow,
} from "../../../src/gateway/storage/submissions/index.js";
import { sqliteStorage } from "../../../src/gateway/storage/transaction.js";
import { newId } from "../../../src/ids.js";
import { postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";

// One suite of cases for the submissions record on both databases (D-221, D-239…D-242, D-275), then what only
// PostgreSQL has to show: several processes (two pools on one database) at once.

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

const SEED = `
  INSERT INTO companies (id, name, created_at) VALUES ('co_a', 'A', '2026-01-01T00:00:00.000Z'),
    ('co_b', 'B', '2026-01-01T00:00:00.000Z');
  INSERT INTO upstream_credentials (id, company_id, name, key_prefix, sealed, created_at) VALUES
    ('cred_a', 'co_a', 'a', 'pk', 'sealed', '2026-01-01T00:00:00.000Z'),
    ('cred_a2', 'co_a', 'a2', 'pk', 'sealed', '2026-01-01T00:00:00.000Z'),
    ('cred_b', 'co_b', 'b', 'pk', 'sealed', '2026-01-01T00:00:00.000Z');
  INSERT INTO vendor_keys (id, company_id, name, partner_type, scopes, credential_id, secret_digest, created_at) VALUES
    ('vk_a', 'co_a', 'a', 'crm', '[]', 'cred_a', 'd', '2026-01-01T00:00:00.000Z'),
    ('vk_a2', 'co_a', 'a2', 'crm', '[]', 'cred_a2', 'd', '2026-01-01T00:00:00.000Z'),
    ('vk_b', 'co_b', 'b', 'crm', '[]', 'cred_b', 'd', '2026-01-01T00:00:00.000Z');`;

interface Harness {
  store: SubmissionStore;
  /** Makes every release of a waiting appointment fail (a trigger), to show what a failing transaction leaves. */
  failReleases(): Promise<void>;
  /** `work` on the store bound to one open transaction, committed when it returns, rolled back when it throws. */
  transaction(work: (store: SubmissionStore) => Promise<void>): Promise<void>;
}

let sequence = 0;

/** A queued submission of `vk_a` (co_a, cred_a) accepted at `at`, with the given fields over it. */
function row(fields: Partial<SubmissionRow> = {}, at = T0 + sequence++): SubmissionRow {
  return submissionRow({
    id: newId("sub", at),
    companyId: "co_a",
    vendorKeyId: "vk_a",
    credentialId: "cred_a",
    kind: "lead",
    status: "queued",
    payloadDigest: null,
    createdAt: iso(at),
    rawPayload: '{"email":"ann@example.com"}',
    canonicalBody: { email: "ann@example.com", nested: { n: 1 } },
    contactEmail: "ann@example.com",
    ...fields,
  });
}

function appointmentOf(lead: SubmissionRow, fields: Partial<SubmissionRow> = {}): SubmissionRow {
  return row({
    kind: "appointment",
    companyId: lead.companyId,
    vendorKeyId: lead.vendorKeyId,
    credentialId: lead.credentialId,
    canonicalBody: { leadId: lead.id, start: "2026-03-02T10:00:00Z" },
    contactEmail: null,
    ...fields,
  });
}

const attempt = (startedAt: number, status: number | null = 200) => ({
  startedAt,
  status,
  error: null,
  latencyMs: 12,
  requestId: "req_1",
  apiVersion: "2026-01",
});

function contractCases(harness: () => Harness) {
  const store = () => harness().store;

  it("gives back an inserted row as it was written, by every lookup", async () => {
    const written = row({ idempotencyKey: "k1", payloadDigest: "dig", upstreamIdempotencyKey: "up" });
    await store().insert(written);
    expect(await store().get(written.id)).toEqual(written);
    expect(await store().getOfVendorKey(written.id, "vk_a")).toEqual(written);
    expect(await store().getOfVendorKey(written.id, "vk_a2")).toBeUndefined();
    expect(await store().getOfCompany(written.id, "co_a")).toEqual(written);
    expect(await store().getOfCompany(written.id, "co_b")).toBeUndefined();
    expect(await store().findByIdempotencyKey("vk_a", "lead", "k1")).toEqual(written);
    expect(await store().findByIdempotencyKey("vk_a", "appointment", "k1")).toBeUndefined();
    expect(await store().get("sub_missing")).toBeUndefined();
  });

  it("commits a batch of inserts in which one row's idempotency key is taken: that one fails alone", async () => {
    await store().insert(row({ idempotencyKey: "taken" }));
    const fresh = Array.from({ length: 5 }, () => row());
    const duplicate = row({ idempotencyKey: "taken" });
    const results = await Promise.allSettled([...fresh, duplicate].map((r) => store().insert(r)));
    expect(results.slice(0, 5).map((r) => r.status)).toEqual(Array(5).fill("fulfilled"));
    expect(results[5]?.status).toBe("rejected");
    for (const r of fresh) expect(await store().get(r.id)).toBeDefined();
    expect(await store().get(duplicate.id)).toBeUndefined();
    // A key without an idempotency key never conflicts.
    await expect(store().insert(row({ idempotencyKey: null }))).resolves.toBeUndefined();
  });

  it("inserts inside a transaction with it: committed with it, or gone with its rollback", async () => {
    const kept = row();
    const dropped = row();
    await harness().transaction((tx) => tx.insert(kept));
    expect(await store().get(kept.id)).toEqual(kept);
    await expect(
      harness().transaction(async (tx) => {
        await tx.insert(dropped);
        expect(await tx.get(dropped.id)).toEqual(dropped);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await store().get(dropped.id)).toBeUndefined();
  });

  it("stores a row that leaves out `test` as no test, alone, in a batch and inside a transaction", async () => {
    const { test: _, ...untested } = row();
    const inBatch = { ...untested, id: newId("sub", T0 + sequence++) };
    const inTransaction = { ...untested, id: newId("sub", T0 + sequence++) };
    await store().insert(untested);
    await Promise.all([store().insert(inBatch), store().insert(row())]);
    await harness().transaction((tx) => tx.insert(inTransaction));
    for (const id of [untested.id, inBatch.id, inTransaction.id]) expect((await store().get(id))?.test).toBe(false);
    // Positive control: a test row stays one.
    const marked = row({ test: true });
    await store().insert(marked);
    expect((await store().get(marked.id))?.test).toBe(true);
  });

  it("fails alone a row whose company does not exist, the rest of its batch committed", async () => {
    const good = row();
    const bad = row({ companyId: "co_missing" });
    const results = await Promise.allSettled([store().insert(good), store().insert(bad)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect(await store().get(good.id)).toBeDefined();
  });

  it("claims a queued row once, and again only after its lease ran out", async () => {
    const r = row();
    await store().insert(r);
    const taken = await store().claim(r.id, T0, 1_000);
    const claimed = await store().get(r.id);
    // The claim answers with the row as it left it: what a send needs, without reading it again.
    expect(taken).toEqual(claimed);
    expect(claimed).toMatchObject({
      status: "forwarding",
      leaseUntil: T0 + 1_000,
      firstSentAt: T0,
      updatedAt: iso(T0),
    });
    expect(await store().claim(r.id, T0 + 999, 1_000)).toBeUndefined();
    expect(await store().claim(r.id, T0 + 1_000, 1_000)).toBeDefined();
    // The first send time stays the first.
    expect((await store().get(r.id))?.firstSentAt).toBe(T0);
    await store().unclaim(r.id, null);
    expect(await store().get(r.id)).toMatchObject({ status: "queued", leaseUntil: null, firstSentAt: null });
    expect(await store().claim("sub_missing", T0, 1_000)).toBeUndefined();
  });

  it("releases expired leases and given-back claims", async () => {
    const [a, b, c] = [row(), row(), row()];
    for (const r of [a, b, c]) await store().insert(r);
    await store().claim(a.id, T0, 1_000);
    await store().claim(b.id, T0, 5_000);
    await store().claim(c.id, T0, 5_000);
    expect(await store().releaseExpiredLeases(T0 + 1_000, T0 + 2_000)).toBe(1);
    expect(await store().get(a.id)).toMatchObject({ status: "queued", leaseUntil: null, updatedAt: iso(T0 + 2_000) });
    await store().releaseLeases([b.id]);
    await store().releaseLeases([]);
    expect(await store().get(b.id)).toMatchObject({ status: "queued", leaseUntil: null });
    expect((await store().get(c.id))?.status).toBe("forwarding");
  });

  it("D-334: keeps the expired leases of the submissions it is told are still being sent", async () => {
    const [sending, orphan] = [row(), row()];
    for (const r of [sending, orphan]) await store().insert(r);
    await store().claim(sending.id, T0, 1_000);
    await store().claim(orphan.id, T0, 1_000);
    expect(await store().releaseExpiredLeases(T0 + 1_000, T0 + 2_000, [sending.id])).toBe(1);
    expect((await store().get(sending.id))?.status).toBe("forwarding");
    // Positive control: the same lease, not excepted, is released.
    expect((await store().get(orphan.id))?.status).toBe("queued");
    expect(await store().releaseExpiredLeases(Number.POSITIVE_INFINITY, T0 + 3_000, [])).toBe(1);
    expect((await store().get(sending.id))?.status).toBe("queued");
  });

  it("loads the queued rows of active credentials, oldest first, with what a dispatcher needs", async () => {
    const first = row({ nextAttemptAt: T0 + 5 }, T0);
    const second = row({}, T0 + 10);
    const otherCredential = row({ vendorKeyId: "vk_a2", credentialId: "cred_a2" }, T0 + 20);
    const notQueued = row({ status: "waiting" }, T0 + 30);
    for (const r of [second, first, otherCredential, notQueued]) await store().insert(r);
    // intake writes `queued`; a waiting one comes from a settle
    await store().settle(notQueued.id, T0, { status: "waiting" });
    expect(await store().loadQueued(["cred_a"])).toEqual([
      {
        id: first.id,
        kind: "lead",
        companyId: "co_a",
        credentialId: "cred_a",
        nextAttemptAt: null,
        canonicalBody: first.canonicalBody,
      },
      {
        id: second.id,
        kind: "lead",
        companyId: "co_a",
        credentialId: "cred_a",
        nextAttemptAt: null,
        canonicalBody: second.canonicalBody,
      },
    ]);
    await store().requeue(first.id, { nextAttemptAt: T0 + 5 });
    expect((await store().loadQueued(["cred_a", "cred_a2"])).map((a) => [a.id, a.nextAttemptAt])).toEqual([
      [first.id, T0 + 5],
      [second.id, null],
      [otherCredential.id, null],
    ]);
    expect(await store().loadQueued([])).toEqual([]);
  });

  it("settles a row with its change, its lease dropped, and gives it back", async () => {
    const r = row();
    await store().insert(r);
    await store().claim(r.id, T0, 1_000);
    const settled = await store().settle(r.id, T0 + 50, {
      status: "forwarded",
      attempts: 1,
      upstreamStatus: 201,
      result: { leadId: "lead_1" },
      forwardedAt: iso(T0 + 50),
      settlementRecordedAt: iso(T0 + 50),
    });
    expect(settled).toEqual({
      ...r,
      status: "forwarded",
      attempts: 1,
      upstreamStatus: 201,
      result: { leadId: "lead_1" },
      forwardedAt: iso(T0 + 50),
      settlementRecordedAt: iso(T0 + 50),
      firstSentAt: T0,
      leaseUntil: null,
      updatedAt: iso(T0 + 50),
    });
    expect(await store().settle("sub_missing", T0, { status: "failed" })).toBeUndefined();
  });

  it("holds an appointment for its unsettled lead of the same key only, and settleReleasing queues it again", async () => {
    const lead = row();
    const appointment = appointmentOf(lead);
    const otherKeyLead = row({ vendorKeyId: "vk_a2", credentialId: "cred_a2" });
    for (const r of [lead, appointment, otherKeyLead]) await store().insert(r);
    expect(await store().holdForLead(appointment.id, otherKeyLead.id, T0)).toBe(false);
    expect(await store().holdForLead(appointment.id, "sub_missing", T0)).toBe(false);
    expect(await store().holdForLead("sub_missing", lead.id, T0)).toBe(false);
    expect(await store().holdForLead(appointment.id, lead.id, T0)).toBe(true);
    expect(await store().get(appointment.id)).toMatchObject({
      status: "waiting",
      waitingReason: `waiting for lead submission ${lead.id}`,
    });
    const { settled, released } = await store().settleReleasing(lead.id, T0 + 10, { status: "forwarded" });
    expect(settled?.status).toBe("forwarded");
    expect(released.map((d) => [d.id, d.status, d.waitingReason])).toEqual([[appointment.id, "queued", null]]);
    expect(await store().get(appointment.id)).toMatchObject({ status: "queued", updatedAt: iso(T0 + 10) });
    // A settled lead holds nothing.
    expect(await store().holdForLead(appointment.id, lead.id, T0 + 20)).toBe(false);
    // An appointment settles without releasing anything.
    expect((await store().settleReleasing(appointment.id, T0 + 30, { status: "forwarded" })).released).toEqual([]);
  });

  it("settleReleasing is one transaction: when the release fails, the lead is not settled either", async () => {
    const lead = row();
    const appointment = appointmentOf(lead);
    for (const r of [lead, appointment]) await store().insert(r);
    expect(await store().holdForLead(appointment.id, lead.id, T0)).toBe(true);
    await harness().failReleases();
    await expect(store().settleReleasing(lead.id, T0 + 10, { status: "forwarded" })).rejects.toThrow();
    expect((await store().get(lead.id))?.status).toBe("queued");
    expect((await store().get(appointment.id))?.status).toBe("waiting");
  });

  it("releases the appointments left waiting for a lead already settled", async () => {
    const lead = row();
    const appointment = appointmentOf(lead);
    const stillWaiting = appointmentOf(row());
    for (const r of [lead, appointment, stillWaiting]) await store().insert(r);
    await store().settle(appointment.id, T0, { status: "waiting" });
    await store().settle(stillWaiting.id, T0, { status: "waiting" });
    await store().settle(lead.id, T0, { status: "failed" });
    expect(await store().releaseOrphanedDependents(T0 + 1)).toBe(1);
    expect((await store().get(appointment.id))?.status).toBe("queued");
    expect((await store().get(stillWaiting.id))?.status).toBe("waiting");
  });

  it("records attempts and counts sends per credential and in all", async () => {
    const r = row();
    const other = row({ companyId: "co_b", vendorKeyId: "vk_b", credentialId: "cred_b" });
    for (const s of [r, other]) await store().insert(s);
    await store().recordAttempt(r, attempt(T0, 429), false, "idem");
    await store().recordAttempt({ ...r, attempts: 0 }, attempt(T0 + 1), true, null);
    await store().recordAttempt(other, attempt(T0 + 2), true, null);
    const attempts = await store().attemptsOf(r.id);
    expect(attempts.map((a) => [a.attempt, a.counted, a.status, a.idempotencyKey])).toEqual([
      [0, false, 429, "idem"],
      [1, true, 200, null],
    ]);
    expect(attempts[0]).toMatchObject({
      submissionId: r.id,
      latencyMs: 12,
      upstreamRequestId: "req_1",
      upstreamApiVersion: "2026-01",
    });
    const since = Date.now() - 60_000;
    expect(await store().sendsByCredential("co_a", since)).toEqual([{ credentialId: "cred_a", used: 2 }]);
    expect(await store().sendsSince(since)).toBe(3);
    expect(await store().sendsSince(Date.now() + 60_000)).toBe(0);
  });

  it("parks, waits and resumes a credential's submissions", async () => {
    const [queued, sending, other] = [row(), row(), row({ vendorKeyId: "vk_a2", credentialId: "cred_a2" })];
    for (const r of [queued, sending, other]) await store().insert(r);
    await store().claim(sending.id, T0, 1_000);
    expect(await store().parkOnCredential("cred_a", "401", T0)).toBe(1);
    expect(await store().get(queued.id)).toMatchObject({ status: "waiting", waitingReason: "credential paused: 401" });
    expect((await store().get(sending.id))?.status).toBe("forwarding");
    await store().waitOnCredential("cred_a", "401", T0 + 1);
    expect(await store().get(sending.id)).toMatchObject({ status: "waiting", leaseUntil: null });
    expect((await store().get(other.id))?.status).toBe("queued");
    await store().resumeCredential("cred_a", T0 + 2);
    expect(await store().get(queued.id)).toMatchObject({
      status: "queued",
      waitingReason: null,
      updatedAt: iso(T0 + 2),
    });
    expect((await store().get(sending.id))?.status).toBe("queued");
  });

  it("pages a company's log newest first by id, with filters", async () => {
    const rows = Array.from({ length: 5 }, (_, i) => row({}, T0 + i * 1_000));
    const appointment = appointmentOf(rows[0] as SubmissionRow, {});
    const elsewhere = row({ companyId: "co_b", vendorKeyId: "vk_b", credentialId: "cred_b" });
    for (const r of [...rows, appointment, elsewhere]) await store().insert(r);
    const ids = [...rows, appointment]
      .map((r) => r.id)
      .sort()
      .reverse();
    const first = await store().listPage("co_a", { limit: 2 });
    expect(first.map((r) => r.id)).toEqual(ids.slice(0, 3));
    const second = await store().listPage("co_a", { limit: 2, cursor: first[1]?.id });
    expect(second.map((r) => r.id)).toEqual(ids.slice(2, 5));
    expect((await store().listPage("co_a", { limit: 10, kind: "appointment" })).map((r) => r.id)).toEqual([
      appointment.id,
    ]);
    expect(await store().listPage("co_a", { limit: 10, status: "failed" })).toEqual([]);
    expect(
      (
        await store().listPage("co_a", {
          limit: 10,
          keyId: "vk_a",
          kind: "lead",
          from: iso(T0 + 1_000),
          to: iso(T0 + 3_000),
        })
      ).map((r) => r.id),
    ).toEqual([rows[3], rows[2], rows[1]].map((r) => r?.id));
    expect(first[0]).toEqual([...rows, appointment].find((r) => r.id === ids[0]));
  });

  it("counts per key, gives the timeline, the failed, and the samples with a raw payload", async () => {
    const since = T0 - 1;
    const [a, b, c] = [row({}, T0), row({}, T0 + 1), row({ vendorKeyId: "vk_a2", credentialId: "cred_a2" }, T0 + 2)];
    const old = row({}, T0 - 10_000);
    for (const r of [a, b, c, old]) await store().insert(r);
    await store().settle(a.id, T0 + 5, { status: "forwarded", forwardedAt: iso(T0 + 5) });
    await store().settle(b.id, T0 + 5, { status: "failed" });
    expect(await store().countsByKey("co_a", since)).toEqual([
      { keyId: "vk_a", accepted: 2, forwarded: 1, failed: 1 },
      { keyId: "vk_a2", accepted: 1, forwarded: 0, failed: 0 },
    ]);
    expect(await store().countsByKey("co_a", since, "vk_a2")).toEqual([
      { keyId: "vk_a2", accepted: 1, forwarded: 0, failed: 0 },
    ]);
    const timeline = await store().timelineSince("co_a", since);
    expect(timeline).toHaveLength(3);
    expect(timeline).toContainEqual({
      status: "forwarded",
      createdAt: iso(T0),
      forwardedAt: iso(T0 + 5),
      updatedAt: iso(T0 + 5),
    });
    expect((await store().failedOf("co_a", {})).map((r) => r.id)).toEqual([b.id]);
    expect(await store().failedOf("co_a", { submissionIds: [a.id] })).toEqual([]);
    expect((await store().failedOf("co_a", { filter: { keyId: "vk_a", kind: "lead" } })).map((r) => r.id)).toEqual([
      b.id,
    ]);
    expect(await store().failedOf("co_a", { filter: { keyId: "vk_a2" } })).toEqual([]);
    expect((await store().withRawPayload({ companyId: "co_a", vendorKeyId: "vk_a" }, 2)).map((r) => r.id)).toEqual([
      b.id,
      a.id,
    ]);
    expect(await store().withRawPayload({ companyId: "co_a", vendorKeyId: "vk_a", kind: "appointment" }, 2)).toEqual(
      [],
    );
  });

  it("finds settled rows whose settlement is owed until it is recorded", async () => {
    const [a, b] = [row(), row()];
    for (const r of [a, b]) await store().insert(r);
    await store().settle(a.id, T0, { status: "forwarded" });
    await store().settle(b.id, T0, { status: "failed" });
    expect((await store().settlementsOwed(10)).map((r) => r.id)).toEqual([a.id, b.id]);
    await store().markSettlementRecorded(a.id, T0 + 1);
    expect((await store().get(a.id))?.settlementRecordedAt).toBe(iso(T0 + 1));
    expect((await store().settlementsOwed(10)).map((r) => r.id)).toEqual([b.id]);
  });

  it("keeps, lists and erases mapping failures", async () => {
    const failure = (rawPayload: string, at: number) => ({
      companyId: "co_a",
      vendorKeyId: "vk_a",
      profileVersionId: "pv_1",
      message: "guardrail",
      rawPayload,
      createdAt: iso(at),
    });
    await store().recordMappingFailure(failure('{"email":"ann@example.com"}', T0));
    await store().recordMappingFailure(failure('{"email":"bob@example.com"}', T0 + 1));
    // Ids are made with the clock: two made in one millisecond have no order, so the rows are compared as a set.
    const listed = await store().mappingFailuresOf("co_a", 10);
    expect(listed).toHaveLength(2);
    expect(listed).toContainEqual({
      id: expect.stringMatching(/^mf_/),
      ...failure('{"email":"bob@example.com"}', T0 + 1),
    });
    expect(listed).toContainEqual({ id: expect.stringMatching(/^mf_/), ...failure('{"email":"ann@example.com"}', T0) });
    expect(listed.map((f) => f.id)).toEqual(
      listed
        .map((f) => f.id)
        .sort()
        .reverse(),
    );
    expect(await store().mappingFailuresOf("co_a", 1)).toHaveLength(1);
    expect(await store().eraseMappingFailures("co_a", (text) => text.includes("ann@"))).toBe(1);
    expect((await store().mappingFailuresOf("co_a", 10)).map((f) => f.rawPayload)).toContainEqual(null);
    expect((await store().mappingFailuresOf("co_a", 10)).map((f) => f.rawPayload)).toContainEqual(
      '{"email":"bob@example.com"}',
    );
    expect(await store().eraseMappingFailures("co_b", () => true)).toBe(0);
  });

  it("purges the raw payloads of finished rows accepted before the cutoff, and old mapping failures'", async () => {
    const old = row({}, T0 - 10_000);
    const oldQueued = row({}, T0 - 9_000);
    const recent = row({}, T0 + 10);
    for (const r of [old, oldQueued, recent]) await store().insert(r);
    await store().settle(old.id, T0, { status: "forwarded" });
    await store().settle(recent.id, T0, { status: "forwarded" });
    await store().recordMappingFailure({
      companyId: "co_a",
      vendorKeyId: "vk_a",
      profileVersionId: "pv",
      message: "m",
      rawPayload: "x",
      createdAt: iso(T0 - 10_000),
    });
    expect(await store().purgePayloadsBefore(T0, iso(T0 + 100))).toBe(1);
    expect(await store().get(old.id)).toMatchObject({ rawPayload: null, purgedAt: iso(T0 + 100) });
    expect((await store().get(oldQueued.id))?.rawPayload).not.toBeNull();
    expect((await store().get(recent.id))?.rawPayload).not.toBeNull();
    expect((await store().mappingFailuresOf("co_a", 1))[0]?.rawPayload).toBeNull();
  });

  it("erases a person's submissions a step at a time, failing what was not settled, then forgets their contact", async () => {
    const sent = row({}, T0);
    const queued = row({}, T0 + 1);
    const someoneElse = row({ contactEmail: "bob@example.com" }, T0 + 2);
    const appointment = appointmentOf(sent, {});
    for (const r of [sent, queued, someoneElse, appointment]) await store().insert(r);
    await store().settle(sent.id, T0, { status: "forwarded", result: { leadId: "lead_9" } });
    const seen: { id: string; result: string | null; leadRef: string | null }[] = [];
    const step = await store().eraseStep("co_a", "contact", "\uffff", T0 + 100, (r) => {
      seen.push({ id: r.id, result: r.result, leadRef: r.leadRef });
      return r.email === "ann@example.com";
    });
    expect(step).toEqual({ erased: [queued.id, sent.id], failed: [queued.id], last: undefined });
    expect(seen.find((s) => s.id === sent.id)).toEqual({ id: sent.id, result: '{"leadId":"lead_9"}', leadRef: null });
    expect(await store().get(queued.id)).toMatchObject({
      status: "failed",
      lastError: "erased at the owner's request",
      rawPayload: null,
      canonicalBody: null,
      purgedAt: iso(T0 + 100),
      contactEmail: "ann@example.com",
    });
    expect(await store().get(sent.id)).toMatchObject({ status: "forwarded", rawPayload: null });
    expect((await store().get(someoneElse.id))?.rawPayload).not.toBeNull();
    const refs: (string | null)[] = [];
    const byLead = await store().eraseStep("co_a", "leadReference", "\uffff", T0 + 100, (r) => {
      refs.push(r.leadRef);
      return r.leadRef === sent.id;
    });
    expect(refs).toEqual([sent.id]);
    expect(byLead).toEqual({ erased: [appointment.id], failed: [appointment.id], last: undefined });
    await store().forgetContacts([queued.id, sent.id]);
    expect(await store().get(sent.id)).toMatchObject({ contactEmail: null, contactPhone: null });
    expect((await store().get(someoneElse.id))?.contactEmail).toBe("bob@example.com");
    expect(typeof (await store().compactAfterErasure())).toBe("boolean");
  });

  it("steps through more than a chunk, newest first, giving where the next step starts", async () => {
    const many = Array.from({ length: ERASURE_CHUNK + 3 }, (_, i) => row({ contactEmail: null }, T0 + i));
    await Promise.all(many.map((r) => store().insert(r)));
    const step = await store().eraseStep("co_a", "contact", "\uffff", T0, () => false);
    const newestFirst = many.map((r) => r.id).reverse();
    expect(step).toEqual({ erased: [], failed: [], last: newestFirst[ERASURE_CHUNK - 1] });
    const rest = await store().eraseStep("co_a", "contact", step.last as string, T0, () => true);
    expect(rest.erased).toEqual(newestFirst.slice(ERASURE_CHUNK));
    expect(rest.last).toBeUndefined();
  });

  it("requeues a row with a redrive's change", async () => {
    const r = row();
    await store().insert(r);
    await store().settle(r.id, T0, { status: "failed", lastError: "boom" });
    await store().requeue(r.id, {
      status: "queued",
      lastError: null,
      canonicalBody: { email: "x@example.com" },
      upstreamKeyGeneration: 1,
      nextAttemptAt: T0 + 9,
    });
    expect(await store().get(r.id)).toMatchObject({
      status: "queued",
      lastError: null,
      canonicalBody: { email: "x@example.com" },
      upstreamKeyGeneration: 1,
      nextAttemptAt: T0 + 9,
    });
  });

  it("selects a company's held payloads by id or connection, and replaces one only while it is held (D-308)", async () => {
    const held = (connectionId: string, fields: Partial<SubmissionRow> = {}) =>
      row({ status: "held", connectionId, heldReason: "email: required", canonicalBody: null, ...fields });
    const [a, b, failed, other] = [
      held("con_1"),
      held("con_2"),
      row({ status: "failed", connectionId: "con_1" }),
      held("con_1", { companyId: "co_b", vendorKeyId: "vk_b", credentialId: "cred_b" }),
    ];
    for (const r of [a, b, failed, other]) await store().insert(r);
    expect((await store().heldOf("co_a", {})).map((r) => r.id)).toEqual([a.id, b.id]);
    expect((await store().heldOf("co_a", { filter: { connectionId: "con_1" } })).map((r) => r.id)).toEqual([a.id]);
    // By id: only held rows of the company (a failed one, another company's: neither).
    expect((await store().heldOf("co_a", { submissionIds: [a.id, failed.id, other.id] })).map((r) => r.id)).toEqual([
      a.id,
    ]);
    expect((await store().failedOf("co_a", { filter: { connectionId: "con_1" } })).map((r) => r.id)).toEqual([
      failed.id,
    ]);
    const change = { status: "queued" as const, heldReason: null, kind: "lead" as const, canonicalBody: { n: 1 } };
    expect(await store().replaceHeld(a.id, change)).toBe(true);
    expect(await store().get(a.id)).toMatchObject(change);
    // A second re-map of the same row finds it no longer held, and changes nothing.
    expect(await store().replaceHeld(a.id, { status: "noted" })).toBe(false);
    expect((await store().get(a.id))?.status).toBe("queued");
  });

  it("gives the alert evaluator what failed in a window, and counts what was accepted only up to a cap (D-381)", async () => {
    const since = T0 + 1_000_000;
    const at = (n: number) => since + n;
    const old = row({ status: "held", connectionId: "con_1" }, since - 1);
    const accepted = Array.from({ length: 12 }, (_, n) => row({}, at(n)));
    const viaConnection = Array.from({ length: 5 }, (_, n) => row({ connectionId: "con_1" }, at(100 + n)));
    const held = [
      row({ status: "held", connectionId: "con_1" }, at(200)),
      row({ status: "held", connectionId: "con_2" }, at(201)),
    ];
    const otherCompany = row(
      { status: "held", connectionId: "con_1", companyId: "co_b", vendorKeyId: "vk_b", credentialId: "cred_b" },
      at(300),
    );
    for (const r of [old, ...accepted, ...viaConnection, ...held, otherCompany]) await store().insert(r);
    // Held payloads in the window, per connection: neither the one before it nor another company's.
    const heldNow = await store().heldSince("co_a", since);
    expect(heldNow.sort((x, y) => String(x.connectionId).localeCompare(String(y.connectionId)))).toEqual([
      { connectionId: "con_1", held: 1 },
      { connectionId: "con_2", held: 1 },
    ]);
    // A key's own intake (outside any connection) and a connection's, each counted exactly under its cap…
    expect(await store().acceptedSince("co_a", { vendorKeyId: "vk_a" }, since, 100)).toBe(12);
    expect(await store().acceptedSince("co_a", { connectionId: "con_1" }, since, 100)).toBe(6);
    // …and no further than the cap: a busy key's window is not read through to learn a share.
    expect(await store().acceptedSince("co_a", { vendorKeyId: "vk_a" }, since, 4)).toBe(4);
    expect(await store().acceptedSince("co_b", { connectionId: "con_1" }, since, 100)).toBe(1);
  });
}

describe("SubmissionStore on SQLite", () => {
  let dir: string;
  let database: ReturnType<typeof openGatewayDb>;
  let current: Harness;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pgw-submissions-"));
    database = openGatewayDb(join(dir, "gateway.db"));
    database.sqlite.exec(SEED);
    const sqlite = database.sqlite;
    const storage = sqliteStorage(database);
    current = {
      store: storage.submissions,
      transaction: (work) => storage.transaction((tx) => work(tx.submissions)),
      failReleases: async () => {
        sqlite.exec(`CREATE TRIGGER fail_release BEFORE UPDATE ON submissions
          WHEN OLD.status = 'waiting' AND NEW.status = 'queued' BEGIN SELECT RAISE(ABORT, 'release refused'); END`);
      },
    };
  });

  afterEach(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  contractCases(() => current);
});

const available = await postgresAvailable();

describe.skipIf(!available)("SubmissionStore on PostgreSQL", () => {
  const database = usePostgresDatabase();
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  let current: Harness;
  // The context's stores of each "process": one per pool, as the gateway builds them once.
  const storages = new Map<pg.Pool, ReturnType<typeof postgresStorage>>();
  const storageOn = (pool: pg.Pool) => {
    let storage = storages.get(pool);
    if (!storage) {
      storage = postgresStorage(pool);
      storages.set(pool, storage);
    }
    return storage;
  };
  const storeOn = (pool: pg.Pool) => storageOn(pool).submissions;
  const closeStorageOf = async (pool: pg.Pool) => {
    await storages.get(pool)?.close();
    storages.delete(pool);
  };

  beforeAll(async () => {
    poolA = (await openPostgres(database.url, { migrate: false, poolMax: 4 })).pool;
    poolB = (await openPostgres(database.url, { migrate: false, poolMax: 4 })).pool;
    await poolA.query(SEED);
  });

  afterAll(async () => {
    for (const pool of [...storages.keys()]) await closeStorageOf(pool);
    await poolA?.end();
    await poolB?.end();
  });

  beforeEach(async () => {
    await poolA.query(`DROP TRIGGER IF EXISTS fail_release ON submissions;
      TRUNCATE submission_attempts, submissions, mapping_failures`);
    current = {
      store: storeOn(poolA),
      transaction: (work) => storageOn(poolA).transaction((tx) => work(tx.submissions)),
      failReleases: async () => {
        await poolA.query(`
          CREATE OR REPLACE FUNCTION fail_release() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'release refused'; END $$;
          CREATE TRIGGER fail_release BEFORE UPDATE ON submissions FOR EACH ROW
            WHEN (OLD.status = 'waiting' AND NEW.status = 'queued') EXECUTE FUNCTION fail_release();`);
      },
    };
  });

  contractCases(() => current);

  it("two processes inserting one idempotency key at once leave one row; the other is refused as a duplicate", async () => {
    for (let round = 0; round < 10; round++) {
      const key = `race-${round}`;
      const [a, b] = [row({ idempotencyKey: key }), row({ idempotencyKey: key })];
      const results = await Promise.allSettled([storeOn(poolA).insert(a), storeOn(poolB).insert(b)]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(refused?.reason).toMatchObject({ code: "23505", constraint: "submissions_key_idem_uq" });
      const { rows } = await poolA.query("SELECT id FROM submissions WHERE idempotency_key = $1", [key]);
      expect(rows).toHaveLength(1);
      // What intake does on a refused insert: the replay is found.
      expect((await storeOn(poolB).findByIdempotencyKey("vk_a", "lead", key))?.id).toBe(rows[0].id);
    }
  });

  it("two processes claiming the same due rows at once claim each row once", async () => {
    const due = Array.from({ length: 40 }, () => row());
    await Promise.all(due.map((r) => storeOn(poolA).insert(r)));
    const claims = await Promise.all(
      due.flatMap((r) => [storeOn(poolA).claim(r.id, T0, 60_000), storeOn(poolB).claim(r.id, T0, 60_000)]),
    );
    for (let i = 0; i < due.length; i++) expect([claims[2 * i], claims[2 * i + 1]].filter(Boolean)).toHaveLength(1);
    // Positive control: an expired lease is claimable again.
    expect(await storeOn(poolB).claim(due[0]?.id as string, T0 + 60_000, 1_000)).toBeDefined();
  });

  it("group-commits concurrent inserts: fewer statements than rows, every row committed, a taken key failing alone", async () => {
    const pool = (await openPostgres(database.url, { migrate: false, poolMax: 4 })).pool;
    // Every statement a pooled connection runs; the inserts into submissions are the batches.
    const query = vi.spyOn(pg.Client.prototype, "query");
    const insertStatements = () =>
      query.mock.calls.filter(([statement]) => /^insert into "submissions"/i.test(statementText(statement))).length;
    try {
      await storeOn(poolA).insert(row({ idempotencyKey: "taken-before" }));
      query.mockClear();
      const rows = Array.from({ length: 200 }, () => row());
      const duplicate = row({ idempotencyKey: "taken-before" });
      const all = [...rows.slice(0, 100), duplicate, ...rows.slice(100)];
      const results = await Promise.allSettled(all.map((r) => storeOn(pool).insert(r)));
      const batches = insertStatements();
      expect(batches).toBeGreaterThan(0);
      expect(batches).toBeLessThan(all.length / 10);
      expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
      expect(results[100]).toMatchObject({ status: "rejected", reason: { code: "23505" } });
      const { rows: counted } = await poolA.query<{ n: number }>("SELECT count(*)::int AS n FROM submissions");
      expect(counted[0]?.n).toBe(201);
      // Arriving while a batch is on its way: they wait and go together in a later one.
      query.mockClear();
      const first = storeOn(pool).insert(row());
      await new Promise((resolve) => setImmediate(resolve));
      const later = Array.from({ length: 50 }, () => storeOn(pool).insert(row()));
      await Promise.all([first, ...later]);
      expect(insertStatements()).toBeLessThanOrEqual(3);
    } finally {
      query.mockRestore();
      await closeStorageOf(pool);
      await pool.end();
    }
  });

  it("an appointment held while its lead settles in another process is never left waiting for it", async () => {
    for (let round = 0; round < 15; round++) {
      const lead = row();
      const appointment = appointmentOf(lead);
      for (const r of [lead, appointment]) await storeOn(poolA).insert(r);
      const [held] = await Promise.all([
        storeOn(poolA).holdForLead(appointment.id, lead.id, T0),
        storeOn(poolB).settleReleasing(lead.id, T0, { status: "forwarded" }),
      ]);
      const after = await storeOn(poolA).get(appointment.id);
      expect(after?.status).toBe("queued");
      expect(typeof held).toBe("boolean");
    }
  });

  it("compacts after an erasure with VACUUM, and refuses to inside a transaction", async () => {
    expect(await storeOn(poolA).compactAfterErasure()).toBe(true);
    await expect(storageOn(poolA).transaction((tx) => tx.submissions.compactAfterErasure())).rejects.toThrow(
      /after the erasure/,
    );
  });
});

/** A statement's text, whether node-postgres was given it as a string or as a query config (`{text, values}`). */
function statementText(statement: unknown): string {
  if (typeof statement === "string") return statement;
  const text = (statement as { text?: unknown } | null)?.text;
  return typeof text === "string" ? text : "";
}
