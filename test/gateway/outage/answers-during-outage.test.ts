import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openPostgres, tryHoldLock } from "../../../src/db/postgres.js";
import { createGateway, type Gateway } from "../../../src/gateway/create-gateway.js";
import { outageCause } from "../../../src/gateway/outage/index.js";
import { SubmissionStreamHub } from "../../../src/gateway/submissions/stream/hub.js";
import { createOwnerToken } from "../../../src/gateway/tenants/owner-tokens.js";
import { listen, type RunningServer } from "../../../src/http/server.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { seedCompany, TEST_PASSWORD_COST } from "../../helpers/gateway.js";
import { captureLog } from "../../helpers/log-capture.js";
import { outageLasting } from "../../helpers/outage-drill.js";
import { postgresAvailable, usePostgresDatabase } from "../../helpers/postgres.js";

/**
 * What the gateway answers while PostgreSQL is away (D-331, D-333), and the F2/F3 findings of the outage branch: a
 * partition ends a statement within the client's query timeout (it never hangs), and the embedded forwarder's lock is
 * known lost when its connection breaks, and taken back once the server answers (D-335, D-336). Cut and stalled for
 * real through the fault proxy.
 */

const available = await postgresAvailable();

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected it to fail");
}

describe.skipIf(!available)("while PostgreSQL is away: the gateway's answers", () => {
  const database = usePostgresDatabase();
  let proxy: FaultProxy;
  let gateway: Gateway;
  let server: RunningServer;
  let token: string;
  let vendorKey: string;
  let companyIds: string[] = [];
  const captured = captureLog();
  beforeAll(async () => {
    const target = new URL(database.url);
    proxy = await startFaultProxy({ target: { host: target.hostname, port: Number(target.port || 5432) } });
    gateway = await createGateway({
      databasePath: "unused.db",
      databaseUrl: proxy.url(database.url),
      // A statement unanswered for 1 s + 5 s fails (a partition).
      postgres: { poolMax: 4, statementTimeoutMs: 1_000 },
      masterKey: randomBytes(32).toString("hex"),
      log: captured.log,
      settings: { passwordCost: TEST_PASSWORD_COST },
    });
    server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
    const company = await seedCompany(gateway);
    companyIds = [company.company.id, (await seedCompany(gateway)).company.id];
    vendorKey = (await company.issueKey()).key;
    const owner = { ownerId: company.owner.id, companyId: company.company.id, role: "admin" as const };
    token = (
      await createOwnerToken({
        ctx: gateway.ctx,
        owner: { ...owner, email: company.email, tokenId: "", kind: "token", csrf: null },
        input: { name: "t" },
      })
    ).token;
  });
  afterEach(async () => {
    await proxy.restore();
  });
  afterAll(async () => {
    await server?.close();
    await gateway?.close();
    await proxy?.close();
  });

  const lead = () => ({
    fullName: "Away Person",
    email: `away-${randomBytes(3).toString("hex")}@example.com`,
    phone: "+1 512-555-0100",
    address: "1 Outage Road, Austin",
  });
  const postLead = () =>
    fetch(`${server.url}/api/inbound/leads`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": vendorKey },
      body: JSON.stringify(lead()),
    });
  const ownerGet = () => fetch(`${server.url}/owner/v1/submissions`, { headers: { authorization: `Bearer ${token}` } });

  it("cut: intake answers 503 with retry-after (§7's body), the owner API 503 store_unavailable, readiness why", async () => {
    // Positive control: all three answer normally before.
    expect((await postLead()).status).toBe(202);
    expect((await ownerGet()).status).toBe(200);
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    await proxy.cut();

    const intake = await postLead();
    expect(intake.status).toBe(503);
    expect(Number(intake.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await intake.json()).toEqual({
      error: "the gateway's database is unavailable; retry shortly",
      reason: expect.stringMatching(/unreachable|connection_lost/),
    });
    const owner = await ownerGet();
    expect(owner.status).toBe(503);
    expect(Number(owner.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await owner.json()).toMatchObject({ code: "store_unavailable", requestId: expect.any(String) });
    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      status: "unavailable",
      checks: { db: expect.stringMatching(/^unreachable: /) },
    });

    await proxy.restore();
    expect((await postLead()).status).toBe(202);
  });

  it("the live log of two companies logs the outage once, not per company and poll, and catches up after", async () => {
    const hub = new SubmissionStreamHub(gateway.ctx, { pollMs: 100 });
    const seen: string[] = [];
    const closers = companyIds.map((companyId, i) =>
      hub.open(companyId, `session-${i}`, { filter: {}, deliver: (row) => seen.push(row.id) }),
    );
    try {
      await proxy.cut();
      // The outage lasts long enough for a dozen polls of each company.
      await outageLasting(1_500);
      await proxy.restore();
      const accepted = await postLead();
      const id = String(((await accepted.json()) as { submissionId: string }).submissionId);
      await expect.poll(() => seen.includes(id), { timeout: 10_000 }).toBe(true);
      const lines = captured.lines.filter((l) => l.loop === "live log poller").map((l) => l.msg);
      expect(lines).toEqual([
        "live log poller: store unavailable, retrying until it is back",
        "live log poller: store available again",
      ]);
    } finally {
      for (const close of closers) close();
    }
  });

  it("stalled (a partition): readiness answers within its 2 s bound; intake 503 within the query timeout, never hangs", async () => {
    await proxy.restore();
    expect((await postLead()).status).toBe(202);
    proxy.stall();
    const started = Date.now();
    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await ready.json()).toMatchObject({
      checks: { db: expect.stringMatching(/did not answer within 2000 ms/) },
    });
    const intakeStarted = Date.now();
    const intake = await postLead();
    expect(intake.status).toBe(503);
    // The statement timeout (1 s) and 5 s, or a new connection's 10 s timeout: bounded either way.
    expect(Date.now() - intakeStarted).toBeLessThan(15_000);
  });
});

describe.skipIf(!available)("F2, F3 (D-335, D-336): a partition and a restart seen by the pool and the locks", () => {
  const database = usePostgresDatabase({ migrate: false });
  let proxy: FaultProxy;
  beforeAll(async () => {
    const target = new URL(database.url);
    proxy = await startFaultProxy({ target: { host: target.hostname, port: Number(target.port || 5432) } });
  });
  afterEach(async () => {
    await proxy.restore();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it("a statement on a stalled connection fails at the pool's query timeout, as an outage", async () => {
    const opened = await openPostgres(proxy.url(database.url), { migrate: false, queryTimeoutMs: 500 });
    opened.pool.on("error", () => undefined);
    try {
      await opened.pool.query("select 1");
      proxy.stall();
      const started = Date.now();
      const error = await failureOf(() => opened.pool.query("select 1"));
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(outageCause(error)?.reason).toBe("unreachable");
    } finally {
      await proxy.restore();
      await opened.close();
    }
  });

  it("the embedded forwarder's lock: lost with its connection, not taken back while another holds it, then taken back", async () => {
    const through = { lockConnection: { connectionString: proxy.url(database.url) } };
    const direct = { lockConnection: { connectionString: database.url } };
    const key = String(BigInt(`0x${randomBytes(6).toString("hex")}`));
    const first = await tryHoldLock(through, key, { checkMs: 300 });
    if (!first) throw new Error("the first process takes the free lock");
    const changes: boolean[] = [];
    first.onChange((held) => changes.push(held));
    // Positive control: held, and nobody else can take it.
    expect(first.held).toBe(true);
    expect(await tryHoldLock(direct, key)).toBeUndefined();

    await proxy.cut();
    await expect.poll(() => first.held, { timeout: 5_000 }).toBe(false);
    // The server ended the broken session: its lock is free, and another process takes it.
    const second = await vi.waitUntil(async () => (await tryHoldLock(direct, key)) ?? false, {
      timeout: 10_000,
      interval: 100,
    });
    const acceptedBefore = proxy.accepted();
    await proxy.restore();
    // The first tries to take it back (new connections through the proxy) and finds it the other's.
    await expect.poll(() => proxy.accepted(), { timeout: 5_000 }).toBeGreaterThan(acceptedBefore + 1);
    expect(first.held).toBe(false);
    // Once the other gives it up, the first has it again.
    await second.release();
    await expect.poll(() => first.held, { timeout: 5_000 }).toBe(true);
    expect(changes).toEqual([false, true]);
    await first.release();
  });
});
