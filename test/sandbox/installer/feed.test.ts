import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSandboxDb } from "../../../src/sandbox/db/client.js";
import { itemsAfterQuery, latestItemsQuery } from "../../../src/sandbox/installer/store/feed.js";
import {
  api,
  CRESTLINE,
  CRESTLINE_KEY,
  createJob,
  type FeedItem,
  type InstallerSandbox,
  installerSandbox,
  moveTo,
  newJob,
  readAll,
  VOLTWORKS,
  VOLTWORKS_KEY,
} from "./support.js";

let sandbox: InstallerSandbox;
beforeEach(() => {
  sandbox = installerSandbox();
});
afterEach(() => sandbox.close());

const feed = (query = "", key = VOLTWORKS_KEY) => api(sandbox, "GET", `/api/partner/v1/jobs${query}`, { key });
const items = (reply: { body: Record<string, unknown> }) => reply.body.resources as FeedItem[];

describe("§4.1 rule 1: the latest page without a cursor; nextCursor continues after it", () => {
  it("answers the latest items in sequence order, a cursor after the last, and only later changes from it", async () => {
    const first = await feed("?limit=3");
    expect(first.status).toBe(200);
    expect(first.body.hasMore).toBe(false);
    const all = await readAll(sandbox, VOLTWORKS_KEY);
    const latest = items(first);
    expect(latest).toEqual(all.items.slice(-3));
    expect(latest.map((i) => i.sequence)).toEqual([...latest.map((i) => i.sequence)].sort((a, b) => a - b));
    expect(first.body.nextCursor).toBe(String(latest.at(-1)?.sequence));

    const nothingNew = await feed(`?cursor=${first.body.nextCursor}`);
    expect(items(nothingNew)).toEqual([]);
    expect(nothingNew.body).toMatchObject({ nextCursor: first.body.nextCursor, hasMore: false });

    const job = createJob(sandbox);
    const later = await feed(`?cursor=${first.body.nextCursor}`);
    expect(items(later).map((i) => (i.resource as { id: string }).id)).toEqual([job.id]);
    expect(items(later)[0]?.sequence).toBeGreaterThan(Number(first.body.nextCursor));
  });

  it("pages forward with hasMore until the end, each item once", async () => {
    const all = await readAll(sandbox, VOLTWORKS_KEY);
    const seen: number[] = [];
    let cursor = "0";
    let pages = 0;
    for (;;) {
      const page = await feed(`?limit=5&cursor=${cursor}`);
      seen.push(...items(page).map((i) => i.sequence));
      pages++;
      cursor = String(page.body.nextCursor);
      if (!page.body.hasMore) break;
      expect(items(page)).toHaveLength(5);
    }
    expect(seen).toEqual(all.items.map((i) => i.sequence));
    expect(pages).toBe(Math.ceil(all.items.length / 5));
  });

  it("a company with no items gets an empty latest page and the start cursor", async () => {
    const company = sandbox.admin.createCompany({
      name: "New Installer",
      kind: "installer_company",
      people: [],
      contractors: [],
    });
    const { key } = sandbox.admin.createKey({ companyId: company.id, kind: "installer-company" });
    const empty = await api(sandbox, "GET", "/api/partner/v1/jobs", { key });
    expect(empty.body).toEqual({ apiVersion: "2026-08-26", resources: [], nextCursor: "0", hasMore: false });
    const job = createJob(sandbox, { installerCompanyId: company.id });
    const next = await api(sandbox, "GET", "/api/partner/v1/jobs?cursor=0", { key });
    expect(items(next).map((i) => (i.resource as { id: string }).id)).toEqual([job.id]);
  });
});

describe("§4.1: the start cursor replays every retained item", () => {
  it("cursor 0 lists every job assigned to the caller, each at its latest version last", async () => {
    const { items: all } = await readAll(sandbox, VOLTWORKS_KEY);
    const ids = new Set(all.map((i) => (i.resource as { id: string }).id));
    for (const id of ["job_sunrise_4001", "job_sunrise_4009", "job_brightline_5003"]) expect(ids.has(id)).toBe(true);
    expect(ids.has("job_sunrise_4101")).toBe(false);
  });
});

describe("§4.1, §7: limit and cursor are validated", () => {
  it.each(["0", "101", "-1", "1.5", "abc", ""])("limit=%s is 400 naming query.limit", async (limit) => {
    const reply = await feed(`?limit=${limit}`);
    expect(reply.status).toBe(400);
    expect(reply.body.field).toBe("query.limit");
  });

  it.each(["abc", "-1", "01", "1.5", "", "9".repeat(16)])("a malformed cursor (%s) is 400", async (cursor) => {
    const reply = await feed(`?cursor=${encodeURIComponent(cursor)}`);
    expect(reply.status).toBe(400);
    expect(reply.body.field).toBe("query.cursor");
  });

  it("a cursor past the feed's last sequence was not given by this feed: 400; the last one itself is fine", async () => {
    const last = await feed();
    const ahead = Number(last.body.nextCursor) + 1000;
    expect((await feed(`?cursor=${ahead}`)).status).toBe(400);
    expect((await feed(`?cursor=${last.body.nextCursor}`)).status).toBe(200);
  });

  it("limit 1 and 100 are accepted; the default page holds at most 50", async () => {
    expect(items(await feed("?limit=1"))).toHaveLength(1);
    expect((await feed("?limit=100")).status).toBe(200);
    for (let i = 0; i < 45; i++) createJob(sandbox);
    expect(items(await feed())).toHaveLength(50);
  });
});

describe("§2.2, §2.1: every change bumps the version once and appends exactly one feed item", () => {
  it("each change from either side adds one item at the next version; its event carries that version", async () => {
    const job = createJob(sandbox);
    const { cursor } = await readAll(sandbox, VOLTWORKS_KEY);
    const jobs = sandbox.admin.installJobs;
    let version = job.version;
    version = await moveTo(sandbox, job.id, "ACKNOWLEDGED", version);
    jobs.changeScope(job.id, {
      packageName: "Solar 6 kW",
      systemType: "SOLAR_PV",
      equipment: [{ sku: "PNL-400", description: "400 W panel", qty: 15 }],
      accessories: [],
      supplierSources: [],
    });
    jobs.setReadiness(job.id, ["PERMIT_PENDING"]);
    jobs.addDocument({ jobId: job.id, category: "PERMIT" });
    jobs.changeSchedule(job.id, {
      status: "CONFIRMED",
      startsAt: "2027-01-11T15:00:00.000Z",
      endsAt: "2027-01-11T23:00:00.000Z",
      timeZone: "America/Phoenix",
    });
    version = jobs.read(job.id).version;
    const scheduled = await api(sandbox, "PUT", `/api/partner/v1/jobs/${job.id}/schedule`, {
      key: VOLTWORKS_KEY,
      json: {
        status: "CONFIRMED",
        startsAt: "2027-01-12T15:00:00Z",
        endsAt: "2027-01-12T23:00:00Z",
        timeZone: "America/Phoenix",
        expectedVersion: version,
      },
    });
    expect(scheduled.status).toBe(200);
    const assigned = await api(sandbox, "PUT", `/api/partner/v1/jobs/${job.id}/technician-assignments`, {
      key: VOLTWORKS_KEY,
      json: { membershipIds: ["mem_voltworks_01"], expectedVersion: version + 1 },
    });
    expect(assigned.status).toBe(200);
    jobs.cancel(job.id, "changed plans");

    const after = await readAll(sandbox, VOLTWORKS_KEY, cursor);
    const versions = after.items.map((i) => (i.resource as { version: number }).version);
    // created (1) and assigned (2) came before the cursor; then 8 changes, one item each, one version each.
    expect(versions).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    const final = jobs.read(job.id);
    expect(final.version).toBe(10);

    const events = sandbox.admin.events({ companyId: "org_sunrise" }).filter((e) => e.resource.id === job.id);
    expect(events.map((e) => [e.event, e.resource])).toEqual([
      ["install.job_assigned", { type: "installJob", id: job.id, version: 2 }],
      ["install.status_changed", { type: "installJob", id: job.id, version: 3 }],
      ["install.scope_acknowledgement_required", { type: "installJob", id: job.id, version: 4 }],
      ["install.readiness_changed", { type: "installJob", id: job.id, version: 5 }],
      ["install.document_available", { type: "installJob", id: job.id, version: 6 }],
      ["install.schedule_changed", { type: "installJob", id: job.id, version: 7 }],
      ["install.schedule_changed", { type: "installJob", id: job.id, version: 8 }],
      // version 9, the technician assignment: §6.7 names no event for it.
      ["install.job_cancelled", { type: "installJob", id: job.id, version: 10 }],
    ]);
  });
});

describe("§1, §5.6: only jobs assigned to the caller, only while assigned", () => {
  it("after an unassignment the feed has one tombstone and never the job's projection again, from old cursors too", async () => {
    const job = createJob(sandbox);
    await moveTo(sandbox, job.id, "ACKNOWLEDGED", job.version);
    const before = await readAll(sandbox, VOLTWORKS_KEY);
    expect(before.items.filter((i) => (i.resource as { id: string }).id === job.id)).toHaveLength(2);

    sandbox.admin.installJobs.unassign(job.id);
    sandbox.admin.installJobs.changeScope(job.id, {
      packageName: "Changed after removal",
      systemType: "SOLAR_PV",
      equipment: [],
      accessories: [],
      supplierSources: [],
    });

    for (const cursor of ["0", before.cursor]) {
      const { items: seen } = await readAll(sandbox, VOLTWORKS_KEY, cursor);
      const ofJob = seen.filter((i) => (i.resource as { id: string }).id === job.id);
      expect(ofJob).toEqual([
        {
          sequence: expect.any(Number),
          changedAt: expect.any(String),
          resource: { id: job.id, version: 4, unassigned: true },
        },
      ]);
    }
    expect((await api(sandbox, "GET", `/api/partner/v1/jobs/${job.id}`, { key: VOLTWORKS_KEY })).status).toBe(404);

    // Assigned to another company: that company sees it from its assignment on; Voltworks still sees only the tombstone.
    sandbox.admin.installJobs.assign(job.id, CRESTLINE);
    const crestline = await readAll(sandbox, CRESTLINE_KEY);
    const theirs = crestline.items.filter((i) => (i.resource as { id: string }).id === job.id);
    expect(theirs.map((i) => i.resource)).toEqual([
      expect.objectContaining({ id: job.id, version: 6, status: "ASSIGNED" }),
    ]);
    expect(sandbox.admin.installJobs.read(job.id).installerCompanyId).toBe(CRESTLINE);
    const voltworks = (await readAll(sandbox, VOLTWORKS_KEY)).items.filter(
      (i) => (i.resource as { id: string }).id === job.id,
    );
    expect(voltworks.map((i) => i.resource)).toEqual([{ id: job.id, version: 4, unassigned: true }]);
  });
});

describe("§4.1: sequences keep increasing across a sandbox reset", () => {
  it("a cursor stored before a reset returns the seed's items again, above it, never skipping them", async () => {
    createJob(sandbox);
    const before = await feed();
    const cursor = Number(before.body.nextCursor);
    sandbox.admin.reset();
    const after = await readAll(sandbox, VOLTWORKS_KEY, String(cursor));
    expect(after.items.length).toBeGreaterThan(0);
    expect(after.items.every((i) => i.sequence > cursor)).toBe(true);
    const seededIds = (await readAll(sandbox, VOLTWORKS_KEY)).items.map((i) => (i.resource as { id: string }).id);
    expect(after.items.map((i) => (i.resource as { id: string }).id)).toEqual(seededIds);
  });

  it("a file database keeps the feed and its sequences across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "installer-feed-"));
    try {
      const dbPath = join(dir, "sandbox.db");
      const first = installerSandbox({ dbPath });
      const job = first.admin.installJobs.create(newJob());
      const cursor = String((await api(first, "GET", "/api/partner/v1/jobs", { key: VOLTWORKS_KEY })).body.nextCursor);
      first.close();
      const second = installerSandbox({ dbPath });
      const again = await api(second, "GET", "/api/partner/v1/jobs?limit=1", { key: VOLTWORKS_KEY });
      expect(again.body.nextCursor).toBe(cursor);
      expect((again.body.resources as FeedItem[])[0]?.resource.id).toBe(job.id);
      second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the feed's cost does not grow with history: both page queries are index ranges", () => {
  it("EXPLAIN QUERY PLAN: the (installer company, sequence) index, no table scan, no sort", () => {
    const { db, sqlite } = openSandboxDb(":memory:");
    try {
      for (const query of [latestItemsQuery(db, VOLTWORKS, 50), itemsAfterQuery(db, VOLTWORKS, 1234, 51)]) {
        const { sql, params } = query.toSQL();
        const plan = (sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join("\n");
        expect(plan).toMatch(/SEARCH install_feed USING INDEX install_feed_installer_sequence_idx/);
        expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
      }
    } finally {
      sqlite.close();
    }
  });
});
