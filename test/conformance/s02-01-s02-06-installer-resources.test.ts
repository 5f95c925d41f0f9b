import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTE_2000, NOTE_2001 } from "./support/fixtures.js";
import { errorMessage, type Reply } from "./support/http.js";
import {
  BLOCKER_CODES,
  CompanySide,
  DAY,
  type FeedItem,
  feedFrom,
  forbiddenFrom,
  iso,
  type JobResource,
  MINUTE,
  openJob,
  ROOMY_LIMITS,
  read,
  resourceOf,
  statusBody,
  visibleJobs,
  write,
} from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";

let target: Target;
let company: CompanySide;
beforeAll(async () => {
  target = await openTarget({ limits: ROOMY_LIMITS });
  company = new CompanySide(target);
});
afterAll(() => target.close());

const TIMESTAMP_MS_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UTC_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** §2.1, checked field by field from the spec's table. */
function expectProjection(job: JobResource): void {
  expect(Object.keys(job).sort()).toEqual(
    [
      "company",
      "customer",
      "documents",
      "id",
      "readiness",
      "schedule",
      "scope",
      "status",
      "technicianAssignments",
      "updatedAt",
      "version",
    ].sort(),
  );
  expect(job.id).toMatch(/^job_/);
  expect(Number.isInteger(job.version)).toBe(true);
  expect(job.company).toEqual({ id: expect.stringMatching(/^org_/), name: expect.any(String) });
  expect(job.customer).toEqual({
    name: expect.any(String),
    phone: expect.any(String),
    address: {
      line1: expect.any(String),
      city: expect.any(String),
      state: expect.any(String),
      zip: expect.any(String),
    },
  });
  expect(job.scope).toEqual({
    packageName: expect.any(String),
    systemType: expect.any(String),
    equipment: expect.any(Array),
    accessories: expect.any(Array),
    supplierSources: expect.any(Array),
    scopeVersion: expect.any(Number),
  });
  for (const item of (job.scope as unknown as { equipment: unknown[] }).equipment) {
    expect(item).toEqual({ sku: expect.any(String), description: expect.any(String), qty: expect.any(Number) });
  }
  if (job.schedule !== null) {
    expect(Object.keys(job.schedule).sort()).toEqual(["endsAt", "startsAt", "status", "timeZone"]);
    expect(["TENTATIVE", "CONFIRMED", "CANCELLED"]).toContain(job.schedule.status);
    for (const at of [job.schedule.startsAt, job.schedule.endsAt]) if (at !== null) expect(at).toMatch(UTC_Z);
  }
  expect(job.readiness).toEqual({ ready: expect.any(Boolean), blockerCodes: expect.any(Array) });
  for (const document of job.documents) {
    expect(document).toEqual({
      id: expect.stringMatching(/^doc_/),
      category: expect.any(String),
      availableAt: expect.stringMatching(UTC_Z),
    });
  }
  for (const assignment of job.technicianAssignments) {
    expect(assignment).toEqual({
      membershipId: expect.stringMatching(/^mem_/),
      assignedAt: expect.stringMatching(UTC_Z),
    });
  }
  expect(job.updatedAt).toMatch(TIMESTAMP_MS_Z);
}

/** Every key name in a JSON value, at any depth. */
function keyNames(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keyNames(item, into);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      keyNames(item, into);
    }
  }
  return into;
}

describe("§2.1 Job (installer-safe projection)", () => {
  it("every job the caller can see has exactly the §2.1 fields, in the §2.1 shapes", async () => {
    const jobs = await visibleJobs(target);
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expectProjection(job);
  });

  it("no omitted field is present anywhere: email, price, options, margin, financing, payments, signatures", async () => {
    const names = keyNames((await feedFrom(target)).items);
    for (const forbidden of [
      "email",
      "price",
      "quotePrice",
      "options",
      "margin",
      "financing",
      "payments",
      "signatures",
    ]) {
      expect(names.has(forbidden), forbidden).toBe(false);
    }
  });

  it("SCOPE_ACK_REQUIRED appears only with ready false", async () => {
    for (const job of await visibleJobs(target)) {
      if (job.readiness.blockerCodes.length > 0) expect(job.readiness.ready).toBe(false);
    }
  });

  describe.runIf(HAS_COMPANY_SIDE)("company side", () => {
    it("version increases when the job changes: a status event on version n returns version n + 1", async () => {
      const job = await company.createJob();
      const reply = await write(
        target,
        "POST",
        `/jobs/${job.id}/status-events`,
        statusBody("ACKNOWLEDGED", job.version),
      );
      expect(resourceOf(reply).version).toBe(job.version + 1);
      expectProjection(resourceOf(reply));
    });
  });
});

describe("§2.2 Change-feed item", () => {
  it("{sequence integer in increasing order, changedAt timestamp, resource the job projection}", async () => {
    const { items } = await feedFrom(target);
    let last = 0;
    for (const item of items as FeedItem[]) {
      expect(Object.keys(item).sort()).toEqual(["changedAt", "resource", "sequence"]);
      expect(Number.isInteger(item.sequence)).toBe(true);
      expect(item.sequence).toBeGreaterThan(last);
      last = item.sequence;
      expect(item.changedAt).toMatch(UTC_Z);
      if (!("unassigned" in item.resource)) expectProjection(item.resource);
    }
  });
});

describe("§2.3 Status event (request)", () => {
  let job: JobResource;
  beforeAll(async () => {
    job = await openJob(target);
  });
  const post = (json: Record<string, unknown>) => write(target, "POST", `/jobs/${job.id}/status-events`, json);
  /** Valid for §2.3 but forbidden by §3.1 from the job's state: 422 means the body passed validation. */
  const probe = (extra: Record<string, unknown> = {}) => statusBody(forbiddenFrom(job.status), job.version, extra);
  const expect400 = (reply: Reply, field: string) => {
    expect(reply.status).toBe(400);
    expect(errorMessage(reply)).toContain(field);
  };

  it("status is required and one of the six posted statuses", async () => {
    const { status: _status, ...without } = probe();
    expect400(await post(without), "status");
    for (const status of ["ASSIGNED", "CANCELLED", "DONE", "acknowledged"])
      expect400(await post(probe({ status })), "status");
  });

  it("occurredAt is an ISO-8601 UTC timestamp, at most 5 minutes ahead and 30 days back", async () => {
    const { occurredAt: _occurredAt, ...without } = probe();
    expect400(await post(without), "occurredAt");
    expect400(await post(probe({ occurredAt: "2026-10-01T17:00:00+02:00" })), "occurredAt");
    expect400(await post(probe({ occurredAt: "yesterday" })), "occurredAt");
    expect400(await post(probe({ occurredAt: iso(Date.now() + 6 * MINUTE) })), "occurredAt");
    expect400(await post(probe({ occurredAt: iso(Date.now() - 31 * DAY) })), "occurredAt");
    expect((await post(probe({ occurredAt: iso(Date.now() + 4 * MINUTE) }))).status).toBe(422);
    expect((await post(probe({ occurredAt: iso(Date.now() - 29 * DAY) }))).status).toBe(422);
  });

  it("note is optional, up to 2,000 characters", async () => {
    expect((await post(probe({ note: NOTE_2000 }))).status).toBe(422);
    expect400(await post(probe({ note: NOTE_2001 })), "note");
  });

  it("blockerCode is required exactly when the status is BLOCKED, one of the eight codes", async () => {
    const blocked = { ...probe(), status: "BLOCKED" };
    const { blockerCode: _code, ...noCode } = blocked as Record<string, unknown>;
    expect400(await post(noCode), "blockerCode");
    expect400(await post({ ...blocked, blockerCode: "NOT_A_CODE" }), "blockerCode");
    const notBlocked = statusBody(forbiddenFrom(job.status), job.version, { blockerCode: "WEATHER" });
    if (notBlocked.status !== "BLOCKED") expect400(await post(notBlocked), "blockerCode");
  });

  it("expectedVersion is a required integer", async () => {
    const { expectedVersion: _v, ...without } = probe();
    expect400(await post(without), "expectedVersion");
    expect400(await post(probe({ expectedVersion: "1" })), "expectedVersion");
    expect400(await post(probe({ expectedVersion: 1.5 })), "expectedVersion");
  });

  describe.runIf(HAS_COMPANY_SIDE)("company side", () => {
    it.each(BLOCKER_CODES)("BLOCKED with blockerCode %s is accepted", async (blockerCode) => {
      const fresh = await company.createJob();
      const reply = await write(
        target,
        "POST",
        `/jobs/${fresh.id}/status-events`,
        statusBody("BLOCKED", fresh.version, { blockerCode, note: NOTE_2000 }),
      );
      expect(reply.status).toBe(201);
      expect(resourceOf(reply).status).toBe("BLOCKED");
    });
  });
});

describe("§2.4 Schedule write (request)", () => {
  let job: JobResource;
  beforeAll(async () => {
    job = await openJob(target);
  });
  const put = (json: Record<string, unknown>) => write(target, "PUT", `/jobs/${job.id}/schedule`, json);
  const valid = () => ({
    status: "CONFIRMED",
    startsAt: "2027-05-01T15:00:00Z",
    endsAt: "2027-05-01T22:00:00Z",
    timeZone: "America/Phoenix",
    // A stale version: a body that passes §2.4 is answered 409, and nothing changes.
    expectedVersion: job.version + 1,
  });
  const expect400 = async (json: Record<string, unknown>, field: string) => {
    const reply = await put(json);
    expect(reply.status).toBe(400);
    expect(errorMessage(reply)).toContain(field);
  };

  it("status is TENTATIVE, CONFIRMED or CANCELLED", async () => {
    for (const status of ["TENTATIVE", "CONFIRMED"]) expect((await put({ ...valid(), status })).status).toBe(409);
    expect((await put({ ...valid(), status: "CANCELLED", startsAt: null, endsAt: null })).status).toBe(409);
    await expect400({ ...valid(), status: "BOOKED" }, "status");
  });

  it("startsAt and endsAt are both required unless CANCELLED; endsAt after startsAt; UTC timestamps", async () => {
    await expect400({ ...valid(), startsAt: null }, "startsAt");
    const { endsAt: _endsAt, ...noEnd } = valid();
    await expect400(noEnd, "endsAt");
    await expect400({ ...valid(), endsAt: "2027-05-01T15:00:00Z" }, "endsAt");
    await expect400({ ...valid(), endsAt: "2027-05-01T14:00:00Z" }, "endsAt");
    await expect400({ ...valid(), startsAt: "2027-05-01T15:00:00+02:00" }, "startsAt");
  });

  it("timeZone is a validated IANA zone name", async () => {
    for (const timeZone of ["America/Phoenix", "Europe/Berlin", "UTC"]) {
      expect((await put({ ...valid(), timeZone })).status).toBe(409);
    }
    for (const timeZone of ["Mars/Olympus_Mons", "+02:00", "EST5EDT6", ""])
      await expect400({ ...valid(), timeZone }, "timeZone");
  });

  it("expectedVersion is required; a stale one is 409 with the current version", async () => {
    const { expectedVersion: _v, ...without } = valid();
    await expect400(without, "expectedVersion");
    const stale = await put(valid());
    expect(stale.status).toBe(409);
    expect(errorMessage(stale)).toContain(String(job.version));
  });

  describe.runIf(HAS_COMPANY_SIDE)("company side", () => {
    it("CANCELLED with null times is accepted and kept", async () => {
      const fresh = await company.createJob();
      const reply = await write(target, "PUT", `/jobs/${fresh.id}/schedule`, {
        status: "CANCELLED",
        startsAt: null,
        endsAt: null,
        timeZone: "America/Phoenix",
        expectedVersion: fresh.version,
      });
      expect(reply.status).toBe(200);
      expect(resourceOf(reply).schedule).toEqual({
        status: "CANCELLED",
        startsAt: null,
        endsAt: null,
        timeZone: "America/Phoenix",
      });
    });

    it("a schedule that ended more than 30 days ago cannot be changed (422); 29 days ago it can", async () => {
      const ended = (days: number) => ({
        schedule: {
          status: "CONFIRMED",
          startsAt: iso(Date.now() - days * DAY - 3_600_000),
          endsAt: iso(Date.now() - days * DAY),
          timeZone: "UTC",
        },
      });
      const change = (job: JobResource) =>
        write(target, "PUT", `/jobs/${job.id}/schedule`, { ...valid(), expectedVersion: job.version });
      expect((await change(await company.createJob(ended(31)))).status).toBe(422);
      expect((await change(await company.createJob(ended(29)))).status).toBe(200);
    });
  });
});

describe("§2.5 Assignment write (request)", () => {
  let job: JobResource;
  beforeAll(async () => {
    job = await openJob(target);
  });
  const put = (json: Record<string, unknown>, on = job) =>
    write(target, "PUT", `/jobs/${on.id}/technician-assignments`, json);

  it("membershipIds: at most 20, unique (400 naming the field)", async () => {
    const ids = Array.from({ length: 21 }, (_, i) => `mem_conformance_${i}`);
    const tooMany = await put({ membershipIds: ids, expectedVersion: job.version });
    expect(tooMany.status).toBe(400);
    expect(errorMessage(tooMany)).toContain("membershipIds");
    const twice = await put({ membershipIds: ["mem_a", "mem_a"], expectedVersion: job.version });
    expect(twice.status).toBe(400);
    expect(errorMessage(twice)).toContain("membershipIds");
    const missing = await put({ expectedVersion: job.version });
    expect(missing.status).toBe(400);
  });

  it("another installer company's technician is refused (422) and nothing changes", async () => {
    const theirs = (await read(target, "/technicians", target.keys.otherInstallerCompany)).body as {
      resources: Array<{ id: string }>;
    };
    const reply = await put({ membershipIds: [theirs.resources[0]?.id], expectedVersion: job.version });
    expect(reply.status).toBe(422);
    expect(errorMessage(reply)).toContain("membershipIds");
    expect(resourceOf(await read(target, `/jobs/${job.id}`)).version).toBe(job.version);
  });

  describe.runIf(HAS_COMPANY_SIDE)("company side", () => {
    it("20 unique active technicians are accepted; the set is replaced; empty unassigns everyone", async () => {
      const team: string[] = [];
      for (let i = 0; i < 20; i++) team.push(String((await company.addTechnician(`Conformance Tech ${i}`)).id));
      let fresh = await company.createJob();
      let reply = await put({ membershipIds: team, expectedVersion: fresh.version }, fresh);
      expect(reply.status).toBe(200);
      fresh = resourceOf(reply);
      expect(fresh.technicianAssignments.map((a) => a.membershipId)).toEqual(team);
      reply = await put({ membershipIds: team.slice(5, 7), expectedVersion: fresh.version }, fresh);
      const kept = resourceOf(reply).technicianAssignments;
      expect(kept.map((a) => a.membershipId)).toEqual(team.slice(5, 7));
      // A technician kept in the set keeps the time it was assigned.
      expect(kept[0]?.assignedAt).toBe(fresh.technicianAssignments[5]?.assignedAt);
      reply = await put({ membershipIds: [], expectedVersion: resourceOf(reply).version }, fresh);
      expect(resourceOf(reply).technicianAssignments).toEqual([]);
    });

    it("an inactive technician of the caller's company is refused (422)", async () => {
      const tech = await company.addTechnician("Soon Inactive");
      await company.setTechnicianActive(String(tech.id), false);
      const fresh = await company.createJob();
      const reply = await put({ membershipIds: [tech.id], expectedVersion: fresh.version }, fresh);
      expect(reply.status).toBe(422);
      expect(errorMessage(reply)).toContain(String(tech.id));
    });
  });
});

describe("§2.6 Technician", () => {
  it("memberships carry an id (the membershipId), a display name and an active flag", async () => {
    const reply = await read(target, "/technicians");
    const { resources } = reply.body as { resources: Array<{ id: string; displayName: string; active: boolean }> };
    expect(resources.length).toBeGreaterThan(0);
    for (const t of resources)
      expect(t).toEqual({
        id: expect.stringMatching(/^mem_/),
        displayName: expect.any(String),
        active: expect.any(Boolean),
      });
    const others = (await read(target, "/technicians", target.keys.otherInstallerCompany)).body as {
      resources: Array<{ id: string }>;
    };
    const mine = new Set(resources.map((t) => t.id));
    expect(others.resources.filter((t) => mine.has(t.id))).toEqual([]);
  });
});
