import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorMessage } from "./support/http.js";
import {
  body,
  CompanySide,
  type FeedItem,
  feedFrom,
  forbiddenFrom,
  type JobResource,
  openJob,
  ROOMY_LIMITS,
  read,
  resourceOf,
  statusBody,
  write,
} from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";

let target: Target;
beforeAll(async () => {
  target = await openTarget({ limits: ROOMY_LIMITS });
});
afterAll(() => target.close());

const page = async (query: string, key = target.keys.installerCompany) => {
  const reply = await read(target, `/jobs${query}`, key);
  expect(reply.status).toBe(200);
  return reply.body as { apiVersion: string; resources: FeedItem[]; nextCursor: string; hasMore: boolean };
};

describe("§4.1 rule 1: the feed without a cursor is the latest page; nextCursor continues", () => {
  it("answers {apiVersion, resources in sequence order, nextCursor, hasMore}; the latest page is the end of the feed", async () => {
    const latest = await page("?limit=5");
    expect(latest.apiVersion).toBe("2026-08-26");
    expect(typeof latest.nextCursor).toBe("string");
    expect(latest.hasMore).toBe(false);
    const sequences = latest.resources.map((i) => i.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    const all = await feedFrom(target);
    expect(latest.resources.map((i) => i.sequence)).toEqual(all.items.slice(-5).map((i) => i.sequence));
  });

  it("following nextCursor with nothing new gives an empty page and the same cursor", async () => {
    const latest = await page("");
    const next = await page(`?cursor=${encodeURIComponent(latest.nextCursor)}`);
    expect(next.resources).toEqual([]);
    expect(next.nextCursor).toBe(latest.nextCursor);
    expect(next.hasMore).toBe(false);
  });

  it("the start cursor 0 replays the retained history: every job the caller can see, hasMore paging through it", async () => {
    const first = await page("?cursor=0&limit=2");
    expect(first.resources).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    const second = await page(`?cursor=${first.nextCursor}&limit=2`);
    expect(second.resources[0]?.sequence).toBeGreaterThan(first.resources[1]?.sequence ?? Number.POSITIVE_INFINITY);
  });

  it("limit is 1 to 100 (default 50); a malformed cursor is 400", async () => {
    expect((await page("?limit=1")).resources.length).toBeLessThanOrEqual(1);
    expect((await page("?limit=100")).resources.length).toBeLessThanOrEqual(100);
    expect((await page("?cursor=0")).resources.length).toBeLessThanOrEqual(50);
    for (const query of ["?limit=0", "?limit=101", "?limit=ten", "?cursor=not-a-cursor", "?cursor=-1"]) {
      const reply = await read(target, `/jobs${query}`);
      expect(reply.status, query).toBe(400);
      expect(errorMessage(reply)).toMatch(/limit|cursor/);
    }
  });

  describe.runIf(HAS_COMPANY_SIDE)("company side", () => {
    it("after a change, the stored cursor returns only the later change", async () => {
      const company = new CompanySide(target);
      const { nextCursor } = await page("");
      const job = await company.createJob();
      const next = await page(`?cursor=${nextCursor}`);
      expect(next.resources.map((i) => i.resource.id)).toEqual([job.id]);
      expect(next.resources[0]?.resource.version).toBe(job.version);
    });
  });
});

describe("§4.1 rule 2: feed items carry the full safe job resource", () => {
  it("a job's latest feed item is the job as GET /jobs/{job_id} answers it", async () => {
    const job = await openJob(target);
    const items = (await feedFrom(target)).items.filter((i) => i.resource.id === job.id);
    const got = await read(target, `/jobs/${job.id}`);
    expect(items.at(-1)?.resource).toEqual(resourceOf(got));
  });
});

describe("§4.1 rule 3: a replay with the same Idempotency-Key and body returns the original answer", () => {
  it("the same key and body replay the answer byte for byte; another body or operation is 409", async () => {
    const job = await openJob(target);
    const key = randomUUID();
    // A forbidden transition (422) changes nothing, so this runs against any target.
    const json = statusBody(forbiddenFrom(job.status), job.version);
    const first = await write(target, "POST", `/jobs/${job.id}/status-events`, json, { idempotencyKey: key });
    expect(first.status).toBe(422);
    const again = await write(target, "POST", `/jobs/${job.id}/status-events`, json, { idempotencyKey: key });
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
    const otherBody = await write(
      target,
      "POST",
      `/jobs/${job.id}/status-events`,
      { ...json, note: "another body" },
      { idempotencyKey: key },
    );
    expect(otherBody.status).toBe(409);
    const otherOperation = await write(
      target,
      "PUT",
      `/jobs/${job.id}/technician-assignments`,
      { membershipIds: [], expectedVersion: job.version },
      { idempotencyKey: key },
    );
    expect(otherOperation.status).toBe(409);
  });

  describe.runIf(HAS_COMPANY_SIDE)("company side", () => {
    it("a replayed 201 makes no new version: the job stays where the first request left it", async () => {
      const company = new CompanySide(target);
      const job = await company.createJob();
      const json = statusBody("ACKNOWLEDGED", job.version);
      const key = randomUUID();
      const first = await write(target, "POST", `/jobs/${job.id}/status-events`, json, { idempotencyKey: key });
      const again = await write(target, "POST", `/jobs/${job.id}/status-events`, json, { idempotencyKey: key });
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again.text).toBe(first.text);
      expect((await company.job(job.id)).version).toBe(job.version + 1);
    });
  });
});

describe("§4.1 rule 4 (not shown): GET one job answers {apiVersion, resource}; another company's job is 404", () => {
  it("answers the envelope of the status-event answer", async () => {
    const job = await openJob(target);
    const reply = await read(target, `/jobs/${job.id}`);
    expect(reply.status).toBe(200);
    expect(Object.keys(body(reply)).sort()).toEqual(["apiVersion", "resource"]);
    expect(body(reply).apiVersion).toBe("2026-08-26");
    const others = await openJob(target, target.keys.otherInstallerCompany);
    expect((await read(target, `/jobs/${others.id}`)).status).toBe(404);
  });
});

describe("§4.1 rule 6 (not shown): GET /api/partner/v1/technicians", () => {
  it("answers {apiVersion, resources: [{id mem_, displayName, active}]}", async () => {
    const reply = await read(target, "/technicians");
    expect(reply.status).toBe(200);
    const { resources } = reply.body as { resources: Array<Record<string, unknown>> };
    expect(resources.length).toBeGreaterThan(0);
    for (const technician of resources) {
      expect(technician).toEqual({
        id: expect.stringMatching(/^mem_/),
        displayName: expect.any(String),
        active: expect.any(Boolean),
      });
    }
  });
});

describe.runIf(HAS_COMPANY_SIDE)("§4.1 rules 5, 7, 8 (not shown): schedule, assignment, documents, evidence", () => {
  let company: CompanySide;
  let job: JobResource;
  beforeAll(async () => {
    company = new CompanySide(target);
    job = await company.createJob();
  });

  it("rule 5: PUT /jobs/{job_id}/schedule answers 200 {apiVersion, resource} with the new version", async () => {
    const reply = await write(target, "PUT", `/jobs/${job.id}/schedule`, {
      status: "CONFIRMED",
      startsAt: "2027-04-01T15:00:00Z",
      endsAt: "2027-04-01T22:00:00Z",
      timeZone: "America/Phoenix",
      expectedVersion: job.version,
    });
    expect(reply.status).toBe(200);
    expect(body(reply).apiVersion).toBe("2026-08-26");
    expect(resourceOf(reply)).toMatchObject({
      version: job.version + 1,
      schedule: {
        status: "CONFIRMED",
        startsAt: "2027-04-01T15:00:00Z",
        endsAt: "2027-04-01T22:00:00Z",
        timeZone: "America/Phoenix",
      },
    });
    job = resourceOf(reply);
  });

  it("rule 7: PUT /jobs/{job_id}/technician-assignments answers 200 {apiVersion, resource} with the new version", async () => {
    const technicians = (await read(target, "/technicians")).body as {
      resources: Array<{ id: string; active: boolean }>;
    };
    const active = technicians.resources.filter((t) => t.active).map((t) => t.id);
    const reply = await write(target, "PUT", `/jobs/${job.id}/technician-assignments`, {
      membershipIds: active.slice(0, 2),
      expectedVersion: job.version,
    });
    expect(reply.status).toBe(200);
    expect(resourceOf(reply).version).toBe(job.version + 1);
    expect(resourceOf(reply).technicianAssignments.map((a) => a.membershipId)).toEqual(active.slice(0, 2));
    job = resourceOf(reply);
  });

  it("rule 8: a document's fresh signed URL by id fetches its content; evidence is uploaded and listed", async () => {
    const { documentId } = (await company.addDocument(job.id, "MANUAL")) as { documentId: string };
    const link = await read(target, `/documents/${documentId}`);
    expect(link.status).toBe(200);
    const document = resourceOf(link) as unknown as { url: string; urlExpiresAt: string; jobId: string };
    expect(document).toMatchObject({ jobId: job.id, url: expect.stringContaining(documentId) });
    const content = await call(target, "GET", document.url, { key: target.keys.installerCompany });
    expect(content.status).toBe(200);
    expect(content.text.length).toBeGreaterThan(0);

    const upload = await write(target, "POST", `/jobs/${job.id}/evidence`, {
      kind: "photo",
      fileName: "meter.jpg",
      contentType: "image/jpeg",
      contentBase64: Buffer.from("a photo").toString("base64"),
    });
    expect(upload.status).toBe(201);
    expect(resourceOf(upload)).toMatchObject({ kind: "photo", fileName: "meter.jpg", bytes: 7 });
    const listed = await read(target, `/jobs/${job.id}/evidence`);
    expect((listed.body as { resources: unknown[] }).resources).toEqual([resourceOf(upload)]);
  });
});
