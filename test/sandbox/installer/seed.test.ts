import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, DEFAULT_SEED_PATH, SeedError } from "../../../src/sandbox/index.js";
import { loadSeed } from "../../../src/sandbox/seed/load-seed.js";
import {
  api,
  CRESTLINE_KEY,
  type FeedItem,
  type InstallerSandbox,
  installerSandbox,
  readAll,
  VOLTWORKS_KEY,
} from "./support.js";

let sandbox: InstallerSandbox;
beforeEach(() => {
  sandbox = installerSandbox();
});
afterEach(() => sandbox.close());

const ids = (items: FeedItem[]) => items.map((i) => (i.resource as { id: string }).id);

describe("seed: installer companies with a live feed (docs/sandbox.md)", () => {
  it("voltworks-installer's 50 most recent feed items hold a job in every §3.1 status", async () => {
    const latest = await api(sandbox, "GET", "/api/partner/v1/jobs", { key: VOLTWORKS_KEY });
    const statuses = new Set(
      (latest.body.resources as FeedItem[]).map((i) => (i.resource as { status: string }).status),
    );
    expect([...statuses].sort()).toEqual(
      ["ACKNOWLEDGED", "ASSIGNED", "BLOCKED", "CANCELLED", "COMPLETE", "EN_ROUTE", "IN_PROGRESS", "ON_SITE"].sort(),
    );
    const readiness = (latest.body.resources as FeedItem[]).map(
      (i) => i.resource.readiness as { blockerCodes: string[] },
    );
    expect(readiness.some((r) => r.blockerCodes.includes("SCOPE_ACK_REQUIRED"))).toBe(true);
  });

  it("crestline-installer has its own jobs; each company's job is a 404 to the other (§5.6)", async () => {
    const crestline = ids((await readAll(sandbox, CRESTLINE_KEY)).items);
    const voltworks = ids((await readAll(sandbox, VOLTWORKS_KEY)).items);
    expect(crestline.length).toBeGreaterThan(2);
    expect(crestline.filter((id) => voltworks.includes(id))).toEqual([]);
    const theirs = crestline[0] ?? "";
    expect((await api(sandbox, "GET", `/api/partner/v1/jobs/${theirs}`, { key: CRESTLINE_KEY })).status).toBe(200);
    expect((await api(sandbox, "GET", `/api/partner/v1/jobs/${theirs}`, { key: VOLTWORKS_KEY })).status).toBe(404);
    expect((await api(sandbox, "GET", "/api/partner/v1/jobs/job_sunrise_4001", { key: CRESTLINE_KEY })).status).toBe(
      404,
    );
  });

  it("seeded jobs are at version 1, items in updatedAt order, changedAt = updatedAt", async () => {
    const { items } = await readAll(sandbox, VOLTWORKS_KEY);
    for (const item of items) {
      expect(item.resource.version).toBe(1);
      expect(item.changedAt).toBe(item.resource.updatedAt);
    }
    const times = items.map((i) => i.changedAt);
    expect(times).toEqual([...times].sort());
  });
});

describe("seed: install jobs are checked against the seed", () => {
  const base = loadSeed(DEFAULT_SEED_PATH);
  const withJob = (patch: Record<string, unknown>) => {
    const seed = structuredClone(base);
    const sunrise = seed.companies.find((c) => c.id === "org_sunrise");
    const job = sunrise?.installJobs[0];
    if (!job) throw new Error("the seed has no sunrise job");
    Object.assign(job, patch);
    return seed;
  };

  it("a job's installer company must be an installer company of the seed", () => {
    expect(() => createSandbox({ seed: withJob({ installerCompanyId: "org_brightline" }) })).toThrow(SeedError);
    expect(() => createSandbox({ seed: withJob({ installerCompanyId: "org_nowhere" }) })).toThrow(/org_nowhere/);
  });

  it("assigned technicians must be the installer company's own", () => {
    const seed = withJob({
      installerCompanyId: "org_voltworks",
      technicianAssignments: [{ membershipId: "mem_crestline_01", assignedAt: "2026-11-20T00:00:00.000Z" }],
    });
    expect(() => createSandbox({ seed })).toThrow(/mem_crestline_01/);
  });
});
