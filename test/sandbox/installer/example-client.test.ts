import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InstallerClient } from "../../../examples/installer-client.js";
import { createLogger } from "../../../src/log.js";
import { faultSpecSchema } from "../../../src/sandbox/faults/fault-spec.js";
import { type RunningSandbox, startSandbox } from "../../../src/sandbox/index.js";
import { FAST } from "../webhooks/support.js";
import { newJob, VOLTWORKS, VOLTWORKS_KEY } from "./support.js";

/** The example installer client of examples/, run against a listening sandbox as an installation company would. */
let sandbox: RunningSandbox;
let dir: string;
let now: number;
const servers: Server[] = [];
const sent: Array<{ path: string; key: string | null; status: number; persisted: boolean }> = [];

beforeEach(async () => {
  sandbox = await startSandbox({ host: "127.0.0.1", port: 0, log: createLogger({ level: "silent" }), webhooks: FAST });
  dir = mkdtempSync(join(tmpdir(), "installer-client-"));
  now = Date.now();
  sent.length = 0;
});
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client whose every request is recorded, with whether its Idempotency-Key was in the state file when it left. */
function client(statePath = join(dir, "state.json"), transport: typeof fetch = fetch): InstallerClient {
  return new InstallerClient({
    baseUrl: sandbox.url,
    apiKey: VOLTWORKS_KEY,
    statePath,
    now: () => now,
    retryBaseMs: 10,
    fetch: async (input, init) => {
      const key = new Headers(init?.headers).get("idempotency-key");
      const persisted =
        key !== null && JSON.stringify(JSON.parse(readFileSync(statePath, "utf8")).pending).includes(key);
      const res = await transport(input, init);
      sent.push({ path: new URL(String(input)).pathname, key, status: res.status, persisted });
      return res;
    },
  });
}

async function subscribed(installer: InstallerClient): Promise<void> {
  const { url, server } = await installer.listen();
  servers.push(server);
  await installer.subscribe(url, { companyId: VOLTWORKS, password: "test_owner_org_voltworks" });
}

describe("§6.7 the example installer client", () => {
  it("lists every assigned job from the start cursor, then polls at most once a minute from its persisted cursor", async () => {
    const installer = client();
    expect(await installer.pollFeed()).toBeGreaterThan(10);
    expect(Object.keys(installer.state.jobs)).toContain("job_sunrise_4001");
    const feedCalls = () => sent.filter((s) => s.path === "/api/partner/v1/jobs").length;
    const calls = feedCalls();

    now += 59_999;
    expect(await installer.pollFeed()).toBe("skipped");
    expect(feedCalls()).toBe(calls);
    const job = sandbox.admin.installJobs.create(newJob());
    now += 1;
    expect(await installer.pollFeed()).toBe(1);
    expect(feedCalls()).toBe(calls + 1);
    expect(installer.state.jobs[job.id]?.version).toBe(2);

    // A new process reads the cursor from the file and goes on from there.
    const restarted = client();
    expect(restarted.state.cursor).toBe(installer.state.cursor);
    now += 60_000;
    expect(await restarted.pollFeed()).toBe(0);
  });

  it("receives the four typical events, verified, and keeps the job they carry", async () => {
    const heard: string[] = [];
    const verifying = new InstallerClient({
      baseUrl: sandbox.url,
      apiKey: VOLTWORKS_KEY,
      statePath: join(dir, "events.json"),
      onEvent: (event) => heard.push(event.event),
    });
    await subscribed(verifying);
    const jobs = sandbox.admin.installJobs;
    const job = jobs.create(newJob());
    jobs.changeScope(job.id, { ...newJob().scope, packageName: "Solar 9 kW" });
    jobs.setReadiness(job.id, ["PERMIT_PENDING"]);
    jobs.changeSchedule(job.id, {
      status: "CONFIRMED",
      startsAt: "2027-09-01T15:00:00.000Z",
      endsAt: "2027-09-01T20:00:00.000Z",
      timeZone: "America/Phoenix",
    });
    jobs.cancel(job.id);
    // Settled: job_cancelled (not one of the four) was not sent, the four were.
    await vi.waitFor(() => expect(sandbox.admin.stats().webhooks.deliveries.pending).toBe(0), { timeout: 5000 });
    expect([...heard].sort()).toEqual([
      "install.job_assigned",
      "install.readiness_changed",
      "install.schedule_changed",
      "install.scope_acknowledgement_required",
    ]);
    expect(verifying.state.jobs[job.id]).toMatchObject({
      version: 5,
      readiness: { blockerCodes: ["PERMIT_PENDING", "SCOPE_ACK_REQUIRED"] },
    });
  });

  it("persists each Idempotency-Key before sending, and acknowledges a scope change with a status event", async () => {
    const installer = client();
    await installer.pollFeed();
    const job = await installer.postStatus("job_sunrise_4004", "EN_ROUTE");
    expect(job).toMatchObject({ status: "EN_ROUTE", version: 2, readiness: { blockerCodes: [] } });
    const write = sent.filter((s) => s.key !== null);
    expect(write).toEqual([
      {
        path: "/api/partner/v1/jobs/job_sunrise_4004/status-events",
        key: expect.any(String),
        status: 201,
        persisted: true,
      },
    ]);
    expect(installer.state.pending).toEqual({});
  });

  it("on a 409 for a stale version re-reads the job and sends again with a new key", async () => {
    const installer = client();
    await installer.pollFeed();
    // The company changes the job with an event the client did not subscribe to: its copy is now stale.
    sandbox.admin.installJobs.addDocument({ jobId: "job_sunrise_4001", category: "PERMIT" });
    const job = await installer.postStatus("job_sunrise_4001", "ACKNOWLEDGED");
    expect(job).toMatchObject({ status: "ACKNOWLEDGED", version: 3 });
    const writes = sent.filter((s) => s.key !== null);
    expect(writes.map((s) => s.status)).toEqual([409, 201]);
    expect(writes[0]?.key).not.toBe(writes[1]?.key);
    expect(sent.some((s) => s.path === "/api/partner/v1/jobs/job_sunrise_4001" && s.status === 200)).toBe(true);
  });

  it("retries a 5xx with the same key, and a write persisted before a crash is sent with its key after a restart", async () => {
    sandbox.admin.faults.add(
      faultSpecSchema.parse({ route: "POST /api/partner/v1/jobs/:job_id/status-events", errorRate: 1, count: 1 }),
    );
    const installer = client();
    await installer.pollFeed();
    await installer.postStatus("job_brightline_5001", "ACKNOWLEDGED");
    const writes = sent.filter((s) => s.key !== null);
    expect(writes.map((s) => s.status)).toEqual([503, 201]);
    expect(writes[0]?.key).toBe(writes[1]?.key);

    // The process dies while its request is out (the network fails every attempt): the write stays in the file.
    const statePath = join(dir, "crash.json");
    const down = client(statePath, async (input, init) =>
      String(input).includes("status-events") ? Promise.reject(new TypeError("fetch failed")) : fetch(input, init),
    );
    await down.readJob("job_sunrise_4002");
    await expect(down.postStatus("job_sunrise_4002", "ACKNOWLEDGED")).rejects.toThrow("fetch failed");
    const [key] = Object.keys(down.state.pending);
    expect(key).toBeDefined();

    const restarted = client(statePath);
    const [done] = await restarted.resume();
    expect(done).toMatchObject({ id: "job_sunrise_4002", status: "ACKNOWLEDGED", version: 2 });
    expect(sent.at(-1)).toMatchObject({ key, status: 201 });
    expect(restarted.state.pending).toEqual({});
  }, 20_000);
});
