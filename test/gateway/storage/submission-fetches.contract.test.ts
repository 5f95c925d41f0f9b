import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openGatewayDb } from "../../../src/db/client.js";
import { openPostgres } from "../../../src/db/postgres.js";
import { postgresStorage } from "../../../src/gateway/storage/postgres.js";
import {
  type SubmissionRow,
  type SubmissionStore,
  submissionRow,
} from "../../../src/gateway/storage/submissions/index.js";
import { sqliteStorage } from "../../../src/gateway/storage/transaction.js";
import { newId } from "../../../src/ids.js";
import { postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";

// The fetch of a notified record (docs/connections.md, "Fetch after notify"; D-321) on both databases: the `fetching`
// rows due, a claim with a lease, each attempt's end under that lease; then, on PostgreSQL, two processes at once.

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

const SEED = `
  INSERT INTO companies (id, name, created_at) VALUES ('co_a', 'A', '2026-01-01T00:00:00.000Z');
  INSERT INTO upstream_credentials (id, company_id, name, key_prefix, sealed, created_at) VALUES
    ('cred_a', 'co_a', 'a', 'pk', 'sealed', '2026-01-01T00:00:00.000Z');
  INSERT INTO vendor_keys (id, company_id, name, partner_type, scopes, credential_id, secret_digest, created_at) VALUES
    ('vk_a', 'co_a', 'a', 'crm', '[]', 'cred_a', 'd', '2026-01-01T00:00:00.000Z');`;

let sequence = 0;

/**
 * A notified record to fetch, due at `due`. accept-hook.ts stores one due at once (no next attempt time: intake's insert
 * writes none); a retried one gets its time from the attempt's end, as `put` gives it here.
 */
function fetchingRow(due: number, fields: Partial<SubmissionRow> = {}): SubmissionRow {
  const at = T0 + sequence++;
  return submissionRow({
    id: newId("sub", at),
    companyId: "co_a",
    vendorKeyId: "vk_a",
    credentialId: "cred_a",
    kind: "lead",
    status: "fetching",
    payloadDigest: `hook:fetch:${at}`,
    idempotencyKey: `hook:fetch:${at}`,
    createdAt: iso(at),
    rawPayload: '{"entry":[]}',
    connectionId: "con_a",
    fetchTarget: { id: String(at) },
    nextAttemptAt: due,
    ...fields,
  });
}

/** Stores `row`, due at its `nextAttemptAt`. */
async function put(store: SubmissionStore, row: SubmissionRow): Promise<void> {
  await store.insert(row);
  if (row.nextAttemptAt !== null) await store.requeue(row.id, { nextAttemptAt: row.nextAttemptAt });
}

function contractCases(store: () => SubmissionStore) {
  it("reads the fetching rows due and free, earliest due first, and nothing else", async () => {
    const later = fetchingRow(T0 + 2);
    const first = fetchingRow(T0 - 5);
    const same = fetchingRow(T0 - 5);
    const notYet = fetchingRow(T0 + 60_000);
    const queued = fetchingRow(T0, { status: "queued", idempotencyKey: "q", payloadDigest: "q" });
    for (const row of [later, first, same, notYet, queued]) await put(store(), row);
    const ids = (rows: SubmissionRow[]) => rows.map((r) => r.id);
    expect(ids(await store().dueFetches(T0 + 2, 10))).toEqual([first.id, same.id, later.id]);
    expect(await store().dueFetches(T0 + 2, 1)).toHaveLength(1);
    // Another connection's due rows, past one whose rate holds its fetches back.
    const other = fetchingRow(T0 + 1, { connectionId: "con_b" });
    await put(store(), other);
    expect(ids(await store().dueFetches(T0 + 2, 10, ["con_a"]))).toEqual([other.id]);
    // A claimed row is not due to anyone else until its lease runs out.
    expect(await store().claimFetch(first.id, T0, 1_000)).toBe(true);
    expect(ids(await store().dueFetches(T0 + 2, 10))).not.toContain(first.id);
    expect(ids(await store().dueFetches(T0 + 1_000, 10))).toContain(first.id);
  });

  it("claims a due row once, again only after its lease ran out, and never before it is due", async () => {
    const row = fetchingRow(T0);
    await put(store(), row);
    expect(await store().claimFetch(row.id, T0 - 1, 1_000)).toBe(false);
    expect(await store().claimFetch(row.id, T0, 1_000)).toBe(true);
    expect(await store().get(row.id)).toMatchObject({ status: "fetching", leaseUntil: T0 + 1_000 });
    expect(await store().claimFetch(row.id, T0 + 999, 1_000)).toBe(false);
    expect(await store().claimFetch(row.id, T0 + 1_000, 1_000)).toBe(true);
    expect(await store().claimFetch("sub_missing", T0, 1_000)).toBe(false);
  });

  it("ends an attempt under its own lease only: a later attempt, then nothing from a lease that ran out", async () => {
    const row = fetchingRow(T0);
    await put(store(), row);
    await store().claimFetch(row.id, T0, 1_000);
    const retry = { attempts: 1, nextAttemptAt: T0 + 5_000, lastError: "the vendor answered 503" };
    expect(await store().endFetch(row.id, T0 + 1_000, T0 + 10, retry)).toMatchObject({
      ...retry,
      status: "fetching",
      leaseUntil: null,
      updatedAt: iso(T0 + 10),
    });
    // Put back for later: a stale poll's claim does not take it early.
    expect(await store().claimFetch(row.id, T0 + 20, 1_000)).toBe(false);
    expect(await store().claimFetch(row.id, T0 + 5_000, 1_000)).toBe(true);
    // The lease ran out and another process claimed it: the first holder's outcome writes nothing.
    expect(await store().claimFetch(row.id, T0 + 6_000, 1_000)).toBe(true);
    expect(await store().endFetch(row.id, T0 + 6_000, T0 + 6_500, { status: "failed" })).toBeUndefined();
    expect(await store().get(row.id)).toMatchObject({ status: "fetching", leaseUntil: T0 + 7_000 });
    expect(await store().endFetch(row.id, T0 + 7_000, T0 + 6_500, { status: "failed" })).toMatchObject({
      status: "failed",
    });
  });

  it("turns the row into the record fetched: its body, key and status, its id and target kept", async () => {
    const row = fetchingRow(T0);
    await put(store(), row);
    await store().claimFetch(row.id, T0, 1_000);
    const ended = await store().endFetch(row.id, T0 + 1_000, T0 + 50, {
      status: "queued",
      rawPayload: '{"id":"L1"}',
      canonicalBody: { fullName: "Ann Lee" },
      profileVersionId: "pv_1",
      idempotencyKey: "hook:L1",
      payloadDigest: "digest",
      vendorRecordId: "L1",
      contactEmail: "ann@example.com",
      attempts: 0,
      nextAttemptAt: null,
      lastError: null,
    });
    expect(ended).toMatchObject({
      id: row.id,
      status: "queued",
      canonicalBody: { fullName: "Ann Lee" },
      idempotencyKey: "hook:L1",
      fetchTarget: row.fetchTarget,
      leaseUntil: null,
    });
    expect(await store().findByIdempotencyKey("vk_a", "lead", "hook:L1")).toEqual(ended);
    expect(await store().findByIdempotencyKey("vk_a", "lead", row.idempotencyKey ?? "")).toBeUndefined();
    // No longer a fetch: neither due nor claimable.
    expect(await store().dueFetches(T0 + 2_000, 10)).toEqual([]);
    expect(await store().claimFetch(row.id, T0 + 2_000, 1_000)).toBe(false);
  });
}

describe("fetching rows on SQLite", () => {
  let dir: string;
  let database: ReturnType<typeof openGatewayDb>;
  let store: SubmissionStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pgw-fetches-"));
    database = openGatewayDb(join(dir, "gateway.db"));
    database.sqlite.exec(SEED);
    store = sqliteStorage(database).submissions;
  });

  afterEach(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  contractCases(() => store);
});

const available = await postgresAvailable();

describe.skipIf(!available)("fetching rows on PostgreSQL", () => {
  const database = usePostgresDatabase();
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  // Each pool is one gateway process, with the stores it builds once.
  let storageA: ReturnType<typeof postgresStorage>;
  let storageB: ReturnType<typeof postgresStorage>;

  beforeAll(async () => {
    poolA = (await openPostgres(database.url, { migrate: false, poolMax: 4 })).pool;
    poolB = (await openPostgres(database.url, { migrate: false, poolMax: 4 })).pool;
    await poolA.query(SEED);
    storageA = postgresStorage(poolA);
    storageB = postgresStorage(poolB);
  });

  afterAll(async () => {
    await storageA?.close();
    await storageB?.close();
    await poolA?.end();
    await poolB?.end();
  });

  beforeEach(async () => {
    await poolA.query("TRUNCATE submission_attempts, submissions, mapping_failures");
  });

  contractCases(() => storageA.submissions);

  it("two processes claiming the same due rows at once fetch each row once", async () => {
    const due = Array.from({ length: 40 }, () => fetchingRow(T0));
    await Promise.all(due.map((r) => storageA.submissions.insert(r)));
    const [seenA, seenB] = await Promise.all([
      storageA.submissions.dueFetches(T0, 100),
      storageB.submissions.dueFetches(T0, 100),
    ]);
    // Both polls read every row; the claims decide.
    expect(seenA).toHaveLength(40);
    expect(seenB).toHaveLength(40);
    const claims = await Promise.all(
      due.flatMap((r) => [
        storageA.submissions.claimFetch(r.id, T0, 60_000),
        storageB.submissions.claimFetch(r.id, T0, 60_000),
      ]),
    );
    for (let i = 0; i < due.length; i++) expect([claims[2 * i], claims[2 * i + 1]].filter(Boolean)).toHaveLength(1);
    // Positive control: once the lease ran out the other process may take it.
    expect(await storageB.submissions.claimFetch(due[0]?.id as string, T0 + 60_000, 1_000)).toBe(true);
  });
});
