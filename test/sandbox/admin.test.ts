import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { faultSpecSchema } from "../../src/sandbox/faults/fault-spec.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/index.js";
import { lead, newSandbox, send } from "./support.js";

let sandbox: ReturnType<typeof newSandbox>;
beforeEach(() => {
  sandbox = newSandbox({ adminToken: "admin-token-for-tests-0001", random: () => 0 });
});
afterEach(() => sandbox.close());

const admin = (method: string, path: string, json?: unknown) =>
  send(sandbox.app, method, `/sandbox/admin${path}`, { token: "admin-token-for-tests-0001", json });
const postLead = (address: string, key = sandbox.key("sunrise-general")) =>
  send(sandbox.app, "POST", "/api/inbound/leads", { key, json: lead(address) });

describe("admin API: access", () => {
  it("refuses requests without the bearer token, or with a wrong one, with 401", async () => {
    expect((await send(sandbox.app, "GET", "/sandbox/admin/stats")).status).toBe(401);
    expect((await send(sandbox.app, "GET", "/sandbox/admin/stats", { token: "wrong-token-wrong-token" })).status).toBe(
      401,
    );
    expect((await admin("GET", "/stats")).status).toBe(200);
  });

  it("an API key is not an admin token", async () => {
    const reply = await send(sandbox.app, "POST", "/sandbox/admin/reset", { key: sandbox.key("sunrise-general") });
    expect(reply.status).toBe(401);
  });
});

describe("admin API: reset to the seed (§1 reset without notice)", () => {
  it("drops what was created, restores the seed, and clears faults and counters", async () => {
    await postLead("20 Reset Road, Phoenix, AZ 85004");
    await admin("POST", "/keys/svc_test_SUNgn0001/revoke");
    await admin("POST", "/faults", { route: "GET /api/inbound/jobs", errorRate: 1 });
    const before = sandbox.admin.stats();
    expect(before.leads.count).toBe(6);

    expect((await admin("POST", "/reset")).status).toBe(200);
    const after = sandbox.admin.stats();
    expect(after.leads.count).toBe(5);
    expect(after.traffic.keys).toEqual([]);
    expect(sandbox.admin.faults.list()).toEqual([]);
    expect((await postLead("20 Reset Road, Phoenix, AZ 85004")).status).toBe(201);
  });
});

describe("admin API: companies and keys", () => {
  it("creates 5 companies with 4 keys each, all usable at once (benchmark credentials)", async () => {
    const keys: string[] = [];
    for (let c = 0; c < 5; c++) {
      const company = await admin("POST", "/companies", { name: `Bench Co ${c}` });
      expect(company.status).toBe(201);
      expect(company.body.id).toMatch(/^org_/);
      for (let k = 0; k < 4; k++) {
        const key = await admin("POST", "/keys", { companyId: company.body.id, kind: "general" });
        expect(key.status).toBe(201);
        expect(key.body).toMatchObject({
          key: expect.stringMatching(/^svc_test_[a-z0-9]+\.[\w-]+$/),
          scopes: ["leads:write", "appointments:write"],
        });
        keys.push(String(key.body.key));
      }
    }
    for (const key of keys)
      expect((await postLead(`${keys.indexOf(key)} Bench Street, Phoenix, AZ 85004`, key)).status).toBe(201);
  });

  it("a contractor key is bound to the company's contractor record and sees its (empty) job list", async () => {
    const company = await admin("POST", "/companies", { name: "Crew Co" });
    const key = await admin("POST", "/keys", { companyId: company.body.id, kind: "installer-contractor" });
    const jobs = await send(sandbox.app, "GET", "/api/inbound/jobs", { key: String(key.body.key) });
    expect(jobs).toMatchObject({ status: 200, body: { jobs: [] } });
  });

  it("refuses scopes that do not belong to the key kind, naming the field", async () => {
    const reply = await admin("POST", "/keys", { companyId: "org_sunrise", kind: "general", scopes: ["jobs:read"] });
    expect(reply).toMatchObject({ status: 400, body: { field: "scopes" } });
  });

  it("refuses a key for an unknown company with 404", async () => {
    expect((await admin("POST", "/keys", { companyId: "org_nope", kind: "general" })).status).toBe(404);
  });

  it("a revoked key answers 401 from the next request on (§7)", async () => {
    expect((await postLead("21 Revoke Road, Phoenix, AZ 85004")).status).toBe(201);
    const revoked = await admin("POST", "/keys/svc_test_SUNgn0001/revoke");
    expect(revoked.body).toMatchObject({ keyId: "svc_test_SUNgn0001", revokedAt: expect.stringMatching(/Z$/) });
    expect((await postLead("22 Revoke Road, Phoenix, AZ 85004")).status).toBe(401);
  });
});

describe("admin API: fault injection (sandbox only)", () => {
  it("answers injected 5xx on the named route only", async () => {
    await admin("POST", "/faults", { route: "POST /api/inbound/leads", errorRate: 1, errorStatus: 502 });
    const faulted = await postLead("30 Fault Street, Phoenix, AZ 85004");
    expect(faulted).toMatchObject({ status: 502, body: { error: "injected fault" } });
    expect(faulted.headers.get("x-svc-api-version")).toBe("2026-08-26");
    const jobs = await send(sandbox.app, "GET", "/api/inbound/jobs", { key: sandbox.key("sunrise-crew-a") });
    expect(jobs.status).toBe(200);
  });

  it("forces 429s with a retry-after", async () => {
    await admin("POST", "/faults", { route: "*", rateLimitRate: 1, retryAfterSeconds: 7 });
    const reply = await postLead("31 Fault Street, Phoenix, AZ 85004");
    expect(reply.status).toBe(429);
    expect(reply.headers.get("retry-after")).toBe("7");
    expect(sandbox.admin.stats().faults.rateLimited).toBe(1);
  });

  it("adds latency", async () => {
    await admin("POST", "/faults", { route: "GET /api/inbound/jobs", latencyMs: 150 });
    const started = performance.now();
    const reply = await send(sandbox.app, "GET", "/api/inbound/jobs", { key: sandbox.key("sunrise-crew-a") });
    expect(reply.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it("matches :param segments and a specific route wins over *", async () => {
    await admin("POST", "/faults", { route: "*", errorRate: 1 });
    await admin("POST", "/faults", { route: "POST /api/inbound/jobs/:job_id/status", latencyMs: 1 });
    const note = await send(sandbox.app, "POST", "/api/inbound/jobs/prj_sunrise_1001/status", {
      key: sandbox.key("sunrise-crew-a"),
      json: { note: "fine" },
    });
    expect(note.status).toBe(201);
    expect((await postLead("32 Fault Street, Phoenix, AZ 85004")).status).toBe(503);
  });

  it("a fault with a count stops after that many requests, and faults can be cleared", async () => {
    await admin("POST", "/faults", { route: "POST /api/inbound/leads", errorRate: 1, count: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await postLead(`4${i} Count Street, Phoenix, AZ 85004`)).status);
    expect(statuses).toEqual([503, 503, 201]);
    await admin("POST", "/faults", { route: "*", errorRate: 1 });
    expect((await admin("DELETE", "/faults")).body).toEqual({ cleared: 1 });
    expect((await postLead("50 Count Street, Phoenix, AZ 85004")).status).toBe(201);
  });

  it("a fault with a duration ends by the sandbox clock however often it is hit (a 429 storm)", async () => {
    let now = Date.parse("2026-09-01T12:00:00Z");
    const timed = newSandbox({ adminToken: "admin-token-for-tests-0002", random: () => 0, clock: { now: () => now } });
    try {
      const added = await send(timed.app, "POST", "/sandbox/admin/faults", {
        token: "admin-token-for-tests-0002",
        json: { route: "*", rateLimitRate: 1, retryAfterSeconds: 2, durationMs: 3_000 },
      });
      expect(added.body).toMatchObject({ durationMs: 3_000, expiresAt: "2026-09-01T12:00:03.000Z" });
      const post = (n: number) =>
        send(timed.app, "POST", "/api/inbound/leads", {
          key: timed.key("sunrise-general"),
          json: lead(`${n} Storm Street, Phoenix, AZ 85004`),
        });
      const during = await post(1);
      expect(during.status).toBe(429);
      expect(during.headers.get("retry-after")).toBe("2");
      now += 2_999;
      expect((await post(2)).status).toBe(429);
      now += 1;
      expect((await post(3)).status).toBe(201);
      expect(timed.admin.faults.list()).toEqual([]);
      expect(timed.admin.stats().faults.rateLimited).toBe(2);
    } finally {
      timed.close();
    }
  });

  it("refuses a malformed fault naming the field", async () => {
    const reply = await admin("POST", "/faults", { route: "leads", errorRate: 2 });
    expect(reply.status).toBe(400);
    expect(String(reply.body.error)).toMatch(/route|errorRate/);
  });

  it("injected failures do not consume the caller's quota", async () => {
    sandbox.admin.setLimits({ key: { limit: 2, windowMs: 60_000 } });
    await admin("POST", "/faults", { route: "*", errorRate: 1, count: 5 });
    for (let i = 0; i < 5; i++) expect((await postLead(`6${i} Quota Street, Phoenix, AZ 85004`)).status).toBe(503);
    expect((await postLead("70 Quota Street, Phoenix, AZ 85004")).status).toBe(201);
    expect((await postLead("71 Quota Street, Phoenix, AZ 85004")).status).toBe(201);
    expect((await postLead("72 Quota Street, Phoenix, AZ 85004")).status).toBe(429);
  });
});

describe("admin API: connection resets over real HTTP", () => {
  let running: RunningSandbox;
  afterEach(() => running.close());

  it("drops the connection without an answer", async () => {
    running = await startSandbox({
      host: "127.0.0.1",
      port: 0,
      log: createLogger({ level: "silent" }),
      random: () => 0,
    });
    running.admin.faults.add({
      route: "GET /api/inbound/jobs",
      latencyMs: 0,
      answerLatencyMs: 0,
      errorRate: 0,
      errorStatus: 503,
      resetRate: 1,
      rateLimitRate: 0,
      retryAfterSeconds: 1,
      count: 1,
    });
    const key = running.testKeys.find((k) => k.name === "sunrise-crew-a")?.key ?? "";
    await expect(fetch(`${running.url}/api/inbound/jobs`, { headers: { "x-api-key": key } })).rejects.toThrow();
    const after = await fetch(`${running.url}/api/inbound/jobs`, { headers: { "x-api-key": key } });
    expect(after.status).toBe(200);
    expect(running.admin.stats().faults.resets).toBe(1);
  });

  it("acts on a request whose answer is delayed, even when the client gave up waiting (a lost answer)", async () => {
    running = await startSandbox({ host: "127.0.0.1", port: 0, log: createLogger({ level: "silent" }) });
    running.admin.faults.add(faultSpecSchema.parse({ route: "POST /api/inbound/leads", answerLatencyMs: 400 }));
    const key = running.testKeys.find((k) => k.name === "sunrise-general")?.key ?? "";
    const post = (timeoutMs: number) =>
      fetch(`${running.url}/api/inbound/leads`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify(lead("33 Lost Answer Lane, Phoenix, AZ 85004")),
        signal: AbortSignal.timeout(timeoutMs),
      });
    await expect(post(150)).rejects.toThrow();
    await expect.poll(() => running.admin.stats().leads.submissions, { timeout: 5_000 }).toBe(1);
    const started = performance.now();
    const again = await post(2_000);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: "merged" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(395);
    expect(running.admin.stats().faults.delayed).toBe(2);
  });
});

describe("admin API: referee stats and limits", () => {
  it("counts admitted and refused requests per key, owner and IP; refused ones are not admitted anywhere", async () => {
    await admin("PUT", "/limits", { key: { limit: 2, windowMs: 60_000 } });
    for (let i = 0; i < 4; i++) await postLead(`8${i} Stats Street, Phoenix, AZ 85004`);
    await postLead("90 Stats Street, Phoenix, AZ 85004", sandbox.key("sunrise-leads-only"));
    const { traffic } = (await admin("GET", "/stats")).body as {
      traffic: { keys: unknown[]; owners: unknown[]; ips: unknown[]; totals: unknown };
    };
    expect(traffic.keys).toEqual([
      { keyId: "svc_test_SUNgn0001", companyId: "org_sunrise", admitted: 2, limited: 2 },
      { keyId: "svc_test_SUNld0001", companyId: "org_sunrise", admitted: 1, limited: 0 },
    ]);
    expect(traffic.owners).toEqual([{ companyId: "org_sunrise", admitted: 3, limited: 2 }]);
    expect(traffic.ips).toEqual([{ ip: "local", admitted: 3, limited: 2 }]);
    expect(traffic.totals).toEqual({ admitted: 3, limited: 2 });
  });

  it("reports and changes limits at run time; unnamed levels keep theirs", async () => {
    const changed = await admin("PUT", "/limits", { owner: { limit: 10, windowMs: 1000 } });
    expect(changed.body).toEqual({
      key: { limit: 60, windowMs: 60_000 },
      owner: { limit: 10, windowMs: 1000 },
      ip: { limit: 600, windowMs: 60_000 },
      health: { limit: 3000, windowMs: 60_000 },
    });
    expect((await admin("PUT", "/limits", { owner: { limit: 0, windowMs: 1000 } })).status).toBe(400);
  });

  it("lists events after a sequence", async () => {
    const book = (k: string) =>
      send(sandbox.app, "POST", "/api/inbound/appointments", {
        key: sandbox.key("sunrise-general"),
        json: {
          leadId: "lead_sunrise_0001",
          startsAt: "2026-10-01T15:00:00Z",
          endsAt: "2026-10-01T16:00:00Z",
          idempotencyKey: k,
        },
      });
    await book("events-list-1");
    await book("events-list-2");
    const all = (await admin("GET", "/events")).body.events as Array<{ sequence: number }>;
    expect(all).toHaveLength(2);
    const after = (await admin("GET", `/events?after=${all[0]?.sequence}`)).body.events as unknown[];
    expect(after).toHaveLength(1);
  });
});
