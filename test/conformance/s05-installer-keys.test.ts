import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorMessage, type Reply } from "./support/http.js";
import {
  API,
  CompanySide,
  feedFrom,
  forbiddenFrom,
  type JobResource,
  openJob,
  ROOMY_LIMITS,
  read,
  statusBody,
  visibleJobs,
  write,
} from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";

let target: Target;
let ownJob: JobResource;
let othersJob: JobResource;
beforeAll(async () => {
  target = await openTarget({ limits: ROOMY_LIMITS });
  ownJob = await openJob(target);
  othersJob = await openJob(target, target.keys.otherInstallerCompany);
});
afterAll(() => target.close());

/** One request per Installer API operation (§4.1), on a job, with the given key. */
function operations(jobId: () => string): Array<[string, (key?: string) => Promise<Reply>]> {
  const send = (method: string, path: string, json?: unknown) => (key?: string) =>
    call(target, method, `${API}${path}`, {
      key,
      json,
      headers: json === undefined ? {} : { "idempotency-key": randomUUID() },
    });
  return [
    ["GET /jobs", send("GET", "/jobs")],
    ["GET /jobs/{job_id}", (key) => send("GET", `/jobs/${jobId()}`)(key)],
    [
      "POST /jobs/{job_id}/status-events",
      (key) => send("POST", `/jobs/${jobId()}/status-events`, statusBody("ACKNOWLEDGED", 1))(key),
    ],
    [
      "PUT /jobs/{job_id}/schedule",
      (key) =>
        send("PUT", `/jobs/${jobId()}/schedule`, { status: "CANCELLED", timeZone: "UTC", expectedVersion: 1 })(key),
    ],
    ["GET /technicians", send("GET", "/technicians")],
    [
      "PUT /jobs/{job_id}/technician-assignments",
      (key) => send("PUT", `/jobs/${jobId()}/technician-assignments`, { membershipIds: [], expectedVersion: 1 })(key),
    ],
  ];
}

const expect401 = (reply: Reply) => {
  expect(reply.status).toBe(401);
  expect(errorMessage(reply)).not.toBe("");
};

describe("§5.3 Installer API v1 accepts installer-company keys only", () => {
  const ops = operations(() => ownJob.id);

  it.each(ops)("%s: no key, a malformed key, an unknown key are 401 (§5.1)", async (_name, send) => {
    expect401(await send());
    expect401(await send("not-a-key"));
    expect401(await send("svc_test_unknownkey00000000.thisisnotarealsecret000000"));
  });

  it.each(ops)("%s: a general, installer-contractor or revoked key is 401 (wrong kind)", async (_name, send) => {
    expect401(await send(target.keys.general));
    expect401(await send(target.keys.contractor));
    expect401(await send(target.keys.revoked));
  });

  it("an installer-company key is 401 on the Inbound API (each surface its own kinds)", async () => {
    expect401(await call(target, "GET", "/api/inbound/jobs", { key: target.keys.installerCompany }));
  });
});

describe("§5.4 a key lacking the operation's scope is 403 naming the scope", () => {
  it("a jobs:read-only key reads, and is 403 on every write and on the technician list, naming the scope", async () => {
    const key = target.keys.installerCompanyReadOnly;
    expect((await read(target, "/jobs", key)).status).toBe(200);
    expect((await read(target, `/jobs/${ownJob.id}`, key)).status).toBe(200);
    const cases: Array<[Promise<Reply>, string]> = [
      [
        write(target, "POST", `/jobs/${ownJob.id}/status-events`, statusBody("ACKNOWLEDGED", 1), { key }),
        "jobs:status:write",
      ],
      [
        write(
          target,
          "PUT",
          `/jobs/${ownJob.id}/schedule`,
          { status: "CANCELLED", timeZone: "UTC", expectedVersion: 1 },
          { key },
        ),
        "jobs:schedule:write",
      ],
      [
        write(
          target,
          "PUT",
          `/jobs/${ownJob.id}/technician-assignments`,
          { membershipIds: [], expectedVersion: 1 },
          { key },
        ),
        "jobs:assignment:write",
      ],
      [read(target, "/technicians", key), "technicians:read"],
    ];
    for (const [pending, scope] of cases) {
      const reply = await pending;
      expect(reply.status).toBe(403);
      expect(errorMessage(reply)).toContain(scope);
    }
  });
});

describe("§5.6 an installer-company key reaches only jobs assigned to its company, only while assigned", () => {
  it("another installer company's job is 404 on every operation, and never in the feed", async () => {
    for (const [name, send] of operations(() => othersJob.id).filter(([name]) => name.includes("{job_id}"))) {
      const reply = await send(target.keys.installerCompany);
      expect(reply.status, name).toBe(404);
    }
    expect((await read(target, `/jobs/job_does_not_exist_0000`)).status).toBe(404);
    const mine = (await feedFrom(target)).items.map((i) => i.resource.id);
    expect(mine).not.toContain(othersJob.id);
    // …and the other company does reach it.
    expect((await read(target, `/jobs/${othersJob.id}`, target.keys.otherInstallerCompany)).status).toBe(200);
  });

  it("a 404 for another company's job changes nothing for it", async () => {
    const before = await read(target, `/jobs/${othersJob.id}`, target.keys.otherInstallerCompany);
    const probe = await write(
      target,
      "POST",
      `/jobs/${othersJob.id}/status-events`,
      statusBody(forbiddenFrom(othersJob.status), othersJob.version),
    );
    expect(probe.status).toBe(404);
    const after = await read(target, `/jobs/${othersJob.id}`, target.keys.otherInstallerCompany);
    expect(after.text).toBe(before.text);
  });

  describe.runIf(HAS_COMPANY_SIDE)("company side", () => {
    it("after an unassignment the job is 404 and its feed shows only the tombstone", async () => {
      const company = new CompanySide(target);
      const job = await company.createJob();
      expect((await read(target, `/jobs/${job.id}`)).status).toBe(200);
      await company.unassign(job.id);
      expect((await read(target, `/jobs/${job.id}`)).status).toBe(404);
      const reply = await write(
        target,
        "POST",
        `/jobs/${job.id}/status-events`,
        statusBody("ACKNOWLEDGED", job.version + 1),
      );
      expect(reply.status).toBe(404);
      const ofJob = (await feedFrom(target)).items.filter((i) => i.resource.id === job.id);
      expect(ofJob.map((i) => i.resource)).toEqual([{ id: job.id, version: job.version + 1, unassigned: true }]);
      expect((await visibleJobs(target)).map((j) => j.id)).not.toContain(job.id);
    });
  });
});
