import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NOTE_2000, NOTE_2001 } from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
import {
  API,
  CompanySide,
  DAY,
  forbiddenFrom,
  iso,
  type JobResource,
  MINUTE,
  openJob,
  ROOMY_LIMITS,
  statusBody,
  write,
} from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";

/**
 * The Installer rows of §8. Locally the sandbox runs the rate limits per second (same rules, shorter windows); a
 * remote target is tested at its own, read from RateLimit-Policy.
 */
const LOCAL_LIMITS = { key: { limit: 5, windowMs: 1000 }, owner: { limit: 8, windowMs: 1000 } };
const TIMEOUT = process.env.CONFORMANCE_BASE_URL ? 900_000 : 30_000;

let target: Target;
/** The other rows, on a sandbox with room for their requests (a remote target waits out its 429s). */
let roomy: Target;
let quota: Record<string, { q: number; w: number }>;
let job: JobResource;

const feed = (key = target.keys.installerCompany) =>
  call(target, "GET", `${API}/jobs?limit=1`, { key, retry429: false });

beforeAll(async () => {
  target = await openTarget({ limits: LOCAL_LIMITS });
  const policy = (await feed()).headers.get("ratelimit-policy") ?? "";
  quota = {};
  for (const item of policy.split(",")) {
    const [name, ...params] = item.trim().split(";");
    const values = Object.fromEntries(params.map((p) => p.split("=")));
    if (name) quota[name.replaceAll('"', "")] = { q: Number(values.q), w: Number(values.w) };
  }
  roomy = await openTarget({ limits: ROOMY_LIMITS });
  job = await openJob(roomy);
});
afterAll(async () => {
  await target.close();
  await roomy.close();
});

describe("§8 Limits: Installer API requests per key and per owner", () => {
  beforeEach(() => target.restartWindows(Math.max(quota.key?.w ?? 60, quota.owner?.w ?? 60) * 1000));

  it("the Installer API has the per-key and per-owner limits (RateLimit-Policy names them)", () => {
    expect(Object.keys(quota)).toEqual(expect.arrayContaining(["key", "owner"]));
    if (target.remote) {
      expect(quota.key).toEqual({ q: 60, w: 60 });
      expect(quota.owner).toEqual({ q: 300, w: 60 });
    }
  });

  it(
    "requests per API key: the quota is admitted, then 429 with retry-after, RateLimit headers and the version header",
    async () => {
      const q = quota.key?.q ?? 60;
      const statuses: number[] = [];
      let refused: Reply | undefined;
      for (let i = 0; i <= q; i++) {
        const reply = await feed();
        statuses.push(reply.status);
        if (reply.status === 429) refused = reply;
      }
      expect(statuses).toEqual([...Array(q).fill(200), 429]);
      expect(refused?.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(refused?.headers.get("ratelimit")).toMatch(/"key";r=0/);
      expect(refused?.headers.get("x-svc-api-version")).toBe("2026-08-26");
      expect(errorMessage(refused as Reply)).not.toBe("");
    },
    TIMEOUT,
  );

  it(
    "requests per key owner: the installer company's keys share its quota",
    async () => {
      const ownerQuota = quota.owner?.q ?? 300;
      const keys = [target.keys.installerCompany, target.keys.installerCompanyReadOnly];
      if (keys.length * (quota.key?.q ?? 60) <= ownerQuota) {
        // At 60/300 two keys cannot exhaust the owner on their own: the test needs a target with tighter limits.
        throw new Error(`two keys cannot exceed the owner quota ${ownerQuota}; run it locally`);
      }
      const statuses: number[] = [];
      let refused: Reply | undefined;
      for (let i = 0; !refused && i <= ownerQuota; i++) {
        const reply = await feed(keys[i % keys.length]);
        statuses.push(reply.status);
        if (reply.status === 429) refused = reply;
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(ownerQuota);
      expect(refused?.headers.get("ratelimit")).toMatch(/"owner";r=0/);
    },
    TIMEOUT,
  );
});

describe("§8 Limits: the other Installer API rows", () => {
  it("request body: over 1 MB is 413; under it is not refused for its size", async () => {
    const path = `/jobs/${job.id}/status-events`;
    const probe = statusBody(forbiddenFrom(job.status), job.version);
    expect((await write(roomy, "POST", path, { ...probe, padding: "x".repeat(1_048_577) })).status).toBe(413);
    expect((await write(roomy, "POST", path, { ...probe, padding: "x".repeat(900_000) })).status).toBe(422);
  });

  it("status event note: 2,000 characters", async () => {
    const path = `/jobs/${job.id}/status-events`;
    const probe = (note: string) => statusBody(forbiddenFrom(job.status), job.version, { note });
    expect((await write(roomy, "POST", path, probe(NOTE_2000))).status).toBe(422);
    expect((await write(roomy, "POST", path, probe(NOTE_2001))).status).toBe(400);
  });

  it("page size, Installer API: 1 to 100, default 50", async () => {
    const page = (query: string) => call(roomy, "GET", `${API}/jobs${query}`, { key: roomy.keys.installerCompany });
    expect((await page("?limit=1")).status).toBe(200);
    expect((await page("?limit=100")).status).toBe(200);
    expect((await page("?limit=0")).status).toBe(400);
    expect((await page("?limit=101")).status).toBe(400);
    const all = (await page("?cursor=0&limit=100")).body as { resources: unknown[] };
    const byDefault = (await page("?cursor=0")).body as { resources: unknown[] };
    expect(byDefault.resources).toHaveLength(Math.min(50, all.resources.length));
  });

  it("assignment set: 20 unique membership ids", async () => {
    const put = (membershipIds: string[]) =>
      write(roomy, "PUT", `/jobs/${job.id}/technician-assignments`, { membershipIds, expectedVersion: job.version });
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `mem_limit_${i}`);
    // 20 ids pass the size rule (then fail as unknown technicians: 422); 21 do not (400).
    expect((await put(ids(20))).status).toBe(422);
    expect((await put(ids(21))).status).toBe(400);
  });

  it("Idempotency-Key header: up to 128 characters from A-Z a-z 0-9 . _ : -", async () => {
    const path = `/jobs/${job.id}/status-events`;
    const probe = statusBody(forbiddenFrom(job.status), job.version);
    const key128 = "Az09._:-".repeat(16);
    expect((await write(roomy, "POST", path, probe, { idempotencyKey: key128 })).status).toBe(422);
    for (const bad of [`${key128}a`, "white space", "slash/no", "comma,no"]) {
      const reply = await write(roomy, "POST", path, probe, { idempotencyKey: bad });
      expect(reply.status, bad).toBe(400);
      expect(errorMessage(reply)).toContain("Idempotency-Key");
    }
    const none = await call(roomy, "POST", `${API}${path}`, { key: roomy.keys.installerCompany, json: probe });
    expect(none.status).toBe(400);
    // §8: "a UUID per logical operation … is the recommended key".
    expect((await write(roomy, "POST", path, probe, { idempotencyKey: randomUUID() })).status).toBe(422);
  });

  it("occurredAt window: up to 5 minutes in the future, 30 days in the past", async () => {
    const path = `/jobs/${job.id}/status-events`;
    const probe = (at: number) => statusBody(forbiddenFrom(job.status), job.version, { occurredAt: iso(at) });
    expect((await write(roomy, "POST", path, probe(Date.now() + 4 * MINUTE))).status).toBe(422);
    expect((await write(roomy, "POST", path, probe(Date.now() + 6 * MINUTE))).status).toBe(400);
    expect((await write(roomy, "POST", path, probe(Date.now() - 29 * DAY))).status).toBe(422);
    expect((await write(roomy, "POST", path, probe(Date.now() - 31 * DAY))).status).toBe(400);
  });

  it.runIf(HAS_COMPANY_SIDE)("schedule change: not allowed once the schedule ended more than 30 days ago", async () => {
    const company = new CompanySide(roomy);
    const ended = await company.createJob({
      schedule: {
        status: "CONFIRMED",
        startsAt: iso(Date.now() - 32 * DAY),
        endsAt: iso(Date.now() - 31 * DAY),
        timeZone: "UTC",
      },
    });
    const reply = await write(roomy, "PUT", `/jobs/${ended.id}/schedule`, {
      status: "CONFIRMED",
      startsAt: "2027-08-01T15:00:00Z",
      endsAt: "2027-08-01T20:00:00Z",
      timeZone: "UTC",
      expectedVersion: ended.version,
    });
    expect(reply.status).toBe(422);
    expect(errorMessage(reply)).toContain("30 days");
  });
});
