import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTE_1, NOTE_2000, NOTE_2001 } from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(() => target.close());

interface Job {
  id: string;
  lastUpdated: string;
  installerNote: string;
  stage: string;
}

const list = (query = "", key = target.keys.contractor) => call(target, "GET", `/api/inbound/jobs${query}`, { key });
const jobsOf = (reply: Reply) => (reply.body as { jobs: Job[] }).jobs;
const note = (jobId: string, json: unknown, key = target.keys.contractor) =>
  call(target, "POST", `/api/inbound/jobs/${jobId}/status`, { key, json });

async function firstJob(key = target.keys.contractor): Promise<Job> {
  const job = jobsOf(await list("?take=1", key))[0];
  if (!job) throw new Error("the contractor record has no jobs; seed one");
  return job;
}

describe("§2.9 Contractor job", () => {
  it("the list is wrapped as {jobs: [...]} and each job has exactly the §2.9 fields", async () => {
    const reply = await list();
    expect(reply.status).toBe(200);
    const jobs = jobsOf(reply);
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      expect(Object.keys(job).sort()).toEqual(
        ["address", "city", "id", "installerNote", "lastUpdated", "stage", "state", "workOrderNo", "zip"].sort(),
      );
      for (const value of Object.values(job)) expect(typeof value).toBe("string");
      expect(job.id).toMatch(/^prj_/);
      expect(job.lastUpdated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    }
  });
});

describe("§3.4 Contractor job stage", () => {
  it("stage is a non-empty string", async () => {
    for (const job of jobsOf(await list())) expect(job.stage).toMatch(/\S/);
  });
});

describe("§4.2 Inbound API: GET /api/inbound/jobs", () => {
  it("lists newest change first", async () => {
    const times = jobsOf(await list("?take=200")).map((j) => Date.parse(j.lastUpdated));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("take defaults to 50", async () => {
    const all = jobsOf(await list("?take=200")).length;
    expect(jobsOf(await list()).length).toBe(Math.min(50, all));
  });

  it("take accepts 1 and 200", async () => {
    expect(jobsOf(await list("?take=1"))).toHaveLength(1);
    expect((await list("?take=200")).status).toBe(200);
  });

  it.each(["0", "201", "-1", "1.5", "abc", ""])("take=%s is 400 naming take", async (take) => {
    const reply = await list(`?take=${take}`);
    expect(reply.status).toBe(400);
    expect(errorMessage(reply)).toContain("take");
  });

  it("lists only the sold jobs of the key's contractor record", async () => {
    const mine = new Set(jobsOf(await list("?take=200")).map((j) => j.id));
    const theirs = jobsOf(await list("?take=200", target.keys.otherContractor)).map((j) => j.id);
    expect(theirs.length).toBeGreaterThan(0);
    for (const id of theirs) expect(mine.has(id)).toBe(false);
  });
});

describe("§4.2 Inbound API: POST /api/inbound/jobs/{job_id}/status", () => {
  it("appends a timestamped installer note and the job becomes the newest change", async () => {
    const all = jobsOf(await list("?take=200"));
    const oldest = all.at(-1);
    if (!oldest) throw new Error("no jobs");
    const text = `Conformance note ${Date.now()}`;
    const reply = await note(oldest.id, { note: text });
    expect(reply.status).toBeGreaterThanOrEqual(200);
    expect(reply.status).toBeLessThan(300);
    const top = jobsOf(await list("?take=1"))[0];
    expect(top?.id).toBe(oldest.id);
    expect(top?.installerNote).toContain(text);
    expect(Date.parse(top?.lastUpdated ?? "")).toBeGreaterThan(Date.parse(oldest.lastUpdated));
  });

  it("keeps earlier notes: a note is appended, not replaced", async () => {
    const job = await firstJob();
    await note(job.id, { note: "first of two" });
    await note(job.id, { note: "second of two" });
    const updated = jobsOf(await list("?take=1"))[0];
    expect(updated?.installerNote).toContain("first of two");
    expect(updated?.installerNote).toContain("second of two");
  });

  it("note takes 1 to 2,000 characters", async () => {
    const job = await firstJob();
    expect((await note(job.id, { note: NOTE_1 })).status).toBe(201);
    expect((await note(job.id, { note: NOTE_2000 })).status).toBe(201);
    for (const body of [{ note: NOTE_2001 }, { note: "" }, {}, { note: 7 }]) {
      const reply = await note(job.id, body);
      expect(reply.status).toBe(400);
      expect(errorMessage(reply)).toContain("note");
    }
  });

  it("a job outside the contractor record is 404, answered like an unknown job", async () => {
    const theirs = await firstJob(target.keys.otherContractor);
    const foreign = await note(theirs.id, { note: "not mine" });
    const unknown = await note("prj_00000000000000000000", { note: "nobody's" });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    const untouched = jobsOf(await list("?take=200", target.keys.otherContractor)).find((j) => j.id === theirs.id);
    expect(untouched?.installerNote).not.toContain("not mine");
  });
});
