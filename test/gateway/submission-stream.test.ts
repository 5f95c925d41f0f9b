import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerApi } from "../../src/gateway/owner/routes/index.js";
import { SubmissionStreamHub } from "../../src/gateway/submissions/stream/hub.js";
import { newApp } from "../../src/http/app.js";
import { ApiError } from "../../src/http/errors.js";
import { listen } from "../../src/http/server.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { seedSubmissions } from "../helpers/seed-submissions.js";
import { sqliteOf } from "../helpers/sqlite-of.js";
import { openSse, type SseClient } from "../helpers/sse.js";
import { TEST_STORE } from "../helpers/test-store.js";

/**
 * The live submission log (docs/decisions.md D-235, D-237): GET /owner/v1/streams/submissions carries the company's
 * new and changed submissions, read from the database so that every process's writes appear.
 */
const LEAD = { fullName: "Ada Lovelace", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };

let t: TestGateway;
/** A second gateway on the same database file: another process, as far as the first one can tell. */
let other: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let rival: Awaited<ReturnType<typeof seedCompany>>;
let acmeKey: string;
let rivalKey: string;
const open: SseClient[] = [];

async function session(email: string): Promise<{ cookie: string; csrf: string }> {
  const res = await postJson(`${t.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  expect(res.status).toBe(200);
  return {
    cookie: String(res.headers.get("set-cookie")).split(";")[0] ?? "",
    csrf: String((await json(res)).csrfToken),
  };
}

async function stream(cookie: string, query = ""): Promise<SseClient> {
  const client = await openSse(`${t.url}/owner/v1/streams/submissions${query}`, { cookie });
  open.push(client);
  if (client.status === 200) await expect.poll(() => client.events.some((e) => e.event === "ready")).toBe(true);
  return client;
}

async function intake(key: string, body: unknown = LEAD): Promise<string> {
  const res = await postJson(`${t.url}/api/inbound/leads`, body, { "x-api-key": key });
  expect(res.status).toBe(202);
  return String((await json(res)).submissionId);
}

const submissionIds = (client: SseClient) =>
  client.events.filter((e) => e.event === "submission").map((e) => JSON.parse(e.data) as Record<string, unknown>);

beforeAll(async () => {
  const databasePath = join(mkdtempSync(join(tmpdir(), "pg-stream-")), "gateway.db");
  t = await startTestGateway({}, { databasePath });
  other = await startTestGateway({}, { databasePath });
  acme = await seedCompany(t.gateway, "Acme Live");
  rival = await seedCompany(t.gateway, "Rival Live");
  acmeKey = (await acme.issueKey()).key;
  rivalKey = (await rival.issueKey()).key;
});
afterAll(async () => {
  for (const client of open) client.close();
  await other?.close();
  await t?.close();
});

describe("the live submission log (D-235)", () => {
  it("requires an owner session or token", async () => {
    const client = await openSse(`${t.url}/owner/v1/streams/submissions`);
    expect(client.status).toBe(401);
  });

  it("carries a submission accepted after it opened, and its changes; never another company's", async () => {
    const { cookie } = await session(acme.email);
    const mine = await stream(cookie);
    const theirs = await stream((await session(rival.email)).cookie);
    const rivalId = await intake(rivalKey);
    const acmeId = await intake(acmeKey);
    // Positive controls: each company's stream carries its own submission.
    await expect.poll(() => submissionIds(mine).map((s) => s.submissionId)).toContain(acmeId);
    await expect.poll(() => submissionIds(theirs).map((s) => s.submissionId)).toContain(rivalId);
    expect(submissionIds(mine).find((s) => s.submissionId === acmeId)).toMatchObject({
      status: "queued",
      kind: "lead",
      vendorKeyId: acmeKey.split(".")[0],
    });
    // A change of state (what forwarding's settle writes) arrives as the same submission, changed.
    t.gateway.ctx.submissions.settle(acmeId, Date.now(), { status: "failed", lastError: "upstream 400: test" });
    await expect
      .poll(() =>
        submissionIds(mine)
          .filter((s) => s.submissionId === acmeId)
          .map((s) => s.status),
      )
      .toEqual(["queued", "failed"]);
    const ids = submissionIds(mine).map((s) => s.submissionId);
    expect(ids).not.toContain(rivalId);
    expect(submissionIds(theirs).map((s) => s.submissionId)).not.toContain(acmeId);
  });

  it("carries what another process wrote to the shared database", async () => {
    const { cookie } = await session(acme.email);
    const mine = await stream(cookie);
    const [id = ""] = await seedSubmissions(other.gateway, [
      {
        companyId: acme.company.id,
        vendorKeyId: acmeKey.split(".")[0] ?? "",
        credentialId: acme.credential.id,
        at: Date.now(),
        status: "queued",
      },
    ]);
    await expect.poll(() => submissionIds(mine).map((s) => s.submissionId)).toContain(id);
  });

  // SQLite's query planner: PostgreSQL's has its own case below.
  it.skipIf(TEST_STORE === "postgres")(
    "reads a company's changes by one seek on submissions_company_updated_idx, without a sort",
    () => {
      const plan = sqliteOf(t.gateway)
        .sqlite.prepare(
          `EXPLAIN QUERY PLAN SELECT * FROM submissions WHERE company_id = ? AND (updated_at, id) > (?, ?)
         ORDER BY updated_at, id LIMIT 500`,
        )
        .all("co", "2026-01-01T00:00:00.000Z", "") as { detail: string }[];
      expect(plan.map((p) => p.detail)).toEqual([
        "SEARCH submissions USING INDEX submissions_company_updated_idx (company_id=? AND (updated_at,id)>(?,?))",
      ]);
    },
  );

  it.skipIf(TEST_STORE === "sqlite")(
    "reads a company's changes by an index scan of submissions_company_updated_idx, without a sort (PostgreSQL)",
    async () => {
      const { database } = t.gateway;
      if (database.dialect !== "postgres") throw new Error("this test asks PostgreSQL's planner");
      const client = await database.database.pool.connect();
      try {
        // The suite's few rows would make a sequential scan cheapest; the plan asked is the one of a large table.
        await client.query("BEGIN; SET LOCAL enable_seqscan = off");
        const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
          `EXPLAIN (FORMAT JSON) SELECT * FROM submissions WHERE company_id = $1 AND (updated_at, id) > ($2, $3)
           ORDER BY updated_at, id LIMIT 500`,
          ["co", "2026-01-01T00:00:00.000Z", ""],
        );
        await client.query("ROLLBACK");
        const nodes = flatten(rows[0]?.["QUERY PLAN"][0].Plan);
        expect(nodes.map((n) => n["Node Type"])).toEqual(["Limit", "Index Scan"]);
        expect(nodes[1]).toMatchObject({
          "Index Name": "submissions_company_updated_idx",
          "Index Cond": expect.stringContaining("company_id = 'co'"),
        });
        expect(nodes[1]?.["Index Cond"]).toContain("ROW(updated_at, id) > ROW(");
      } finally {
        client.release();
      }
    },
  );

  it("narrows to a key and a kind when asked (attributes a submission never changes)", async () => {
    const { cookie } = await session(acme.email);
    const second = (await acme.issueKey({ name: "second vendor" })).key;
    const narrowed = await stream(cookie, `?keyId=${encodeURIComponent(second.split(".")[0] ?? "")}`);
    const other = await intake(acmeKey, { ...LEAD, email: "other@example.com" });
    const wanted = await intake(second, { ...LEAD, email: "wanted@example.com" });
    await expect.poll(() => submissionIds(narrowed).map((s) => s.submissionId)).toContain(wanted);
    expect(submissionIds(narrowed).map((s) => s.submissionId)).not.toContain(other);
    const bad = await openSse(`${t.url}/owner/v1/streams/submissions?kind=invoice`, { cookie });
    expect(bad.status).toBe(400);
  });
});

describe("stream caps and the session's end (D-237)", () => {
  it("refuses a fourth stream of one session with 429, not another session's first", async () => {
    const { cookie } = await session(acme.email);
    const three = [await stream(cookie), await stream(cookie), await stream(cookie)];
    const fourth = await openSse(`${t.url}/owner/v1/streams/submissions`, { cookie });
    expect(fourth.status).toBe(429);
    expect(String(fourth.body?.error)).toMatch(/at most 3 live submission streams per session/);
    const elsewhere = await stream((await session(acme.email)).cookie);
    expect(elsewhere.status).toBe(200);
    // Closing one makes room again (the server hears the client go away).
    three[0]?.close();
    await expect
      .poll(async () => {
        const again = await openSse(`${t.url}/owner/v1/streams/submissions`, { cookie });
        open.push(again);
        return again.status;
      })
      .toBe(200);
  });

  it("caps the streams of the whole process with 503", () => {
    const hub = new SubmissionStreamHub(t.gateway.ctx, { perProcess: 2 });
    const subscriber = { filter: {}, deliver: () => {} };
    const closeA = hub.open(acme.company.id, "session-a", subscriber);
    const closeB = hub.open(rival.company.id, "session-b", subscriber);
    expect(hub.stats).toEqual({ streams: 2, companies: 2 });
    let refused: unknown;
    try {
      hub.open(acme.company.id, "session-c", subscriber);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);
    closeA();
    closeA();
    expect(hub.stats).toEqual({ streams: 1, companies: 1 });
    closeB();
    expect(hub.stats).toEqual({ streams: 0, companies: 0 });
  });

  it("sends a heartbeat comment on a quiet stream", async () => {
    // The route on an app of its own, with a heartbeat every 50 ms instead of 15 s.
    const app = newApp({ log: t.gateway.ctx.log });
    ownerApi(app as never, t.gateway.ctx, { streamLimits: { heartbeatMs: 50 } });
    const server = await listen(app, { host: "127.0.0.1", port: 0 });
    const { cookie } = await session(acme.email);
    const client = await openSse(`${server.url}/owner/v1/streams/submissions`, { cookie });
    open.push(client);
    await expect.poll(() => client.comments.filter((c) => c === "heartbeat").length).toBeGreaterThan(1);
    client.close();
    await server.close();
  });

  it("ends the stream when its session signs out, saying why", async () => {
    const { cookie, csrf } = await session(acme.email);
    const mine = await stream(cookie);
    const out = await fetch(`${t.url}/owner/v1/sessions/current`, {
      method: "DELETE",
      headers: { cookie, "x-csrf-token": csrf },
    });
    expect(out.status).toBe(200);
    await mine.ended;
    expect(mine.events.at(-1)).toEqual({ event: "end", data: JSON.stringify({ reason: "signed out" }) });
    expect((await openSse(`${t.url}/owner/v1/streams/submissions`, { cookie })).status).toBe(401);
  });
});

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, top first. */
function flatten(node: PlanNode | undefined): PlanNode[] {
  return node ? [node, ...(node.Plans ?? []).flatMap(flatten)] : [];
}
