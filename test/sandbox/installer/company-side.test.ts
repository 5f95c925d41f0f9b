import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { send } from "../support.js";
import {
  api,
  CRESTLINE,
  createJob,
  type InstallerSandbox,
  installerSandbox,
  moveTo,
  newJob,
  VOLTWORKS,
  VOLTWORKS_KEY,
} from "./support.js";

let sandbox: InstallerSandbox;
beforeEach(() => {
  sandbox = installerSandbox();
});
afterEach(() => sandbox.close());

const admin = (method: string, path: string, json?: unknown) =>
  send(sandbox.app, method, `/sandbox/admin${path}`, { token: "admin-token-for-installer-tests", json });

describe("admin API: the company's side of install jobs", () => {
  it("needs the admin token; creates a job, optionally assigned (two changes: created, assigned)", async () => {
    expect((await send(sandbox.app, "POST", "/sandbox/admin/install-jobs", { json: newJob() })).status).toBe(401);
    const created = await admin("POST", "/install-jobs", newJob());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ installerCompanyId: VOLTWORKS, version: 2, status: "ASSIGNED" });
    const unassigned = await admin("POST", "/install-jobs", newJob({ installerCompanyId: undefined }));
    expect(unassigned.body).toMatchObject({ installerCompanyId: null, version: 1 });
    const read = await admin("GET", `/install-jobs/${created.body.id}`);
    expect(read.body).toMatchObject({ id: created.body.id, customer: { email: "test.customer@example.com" } });
  });

  it("refuses what a company cannot do: 404 unknown, 400 invalid, 409 no-op, 422 terminal", async () => {
    expect((await admin("GET", "/install-jobs/job_nope")).status).toBe(404);
    expect((await admin("POST", "/install-jobs", newJob({ companyId: "org_nope" }))).status).toBe(404);
    const wrongKind = await admin("POST", "/install-jobs", newJob({ companyId: VOLTWORKS }));
    expect(wrongKind.status).toBe(400);
    const { customer: _customer, ...noCustomer } = newJob();
    const missing = await admin("POST", "/install-jobs", noCustomer);
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe("customer");
    const job = createJob(sandbox);
    const ack = await admin("PUT", `/install-jobs/${job.id}/readiness`, { blockerCodes: ["SCOPE_ACK_REQUIRED"] });
    expect(ack.status).toBe(400);
    expect((await admin("POST", `/install-jobs/${job.id}/assign`, { installerCompanyId: "org_sunrise" })).status).toBe(
      400,
    );
    expect((await admin("POST", `/install-jobs/${job.id}/assign`, { installerCompanyId: VOLTWORKS })).status).toBe(409);
    expect((await admin("POST", `/install-jobs/${job.id}/completion/accept`)).status).toBe(422);
    expect((await admin("POST", `/install-jobs/${job.id}/cancel`, { reason: "no longer wanted" })).status).toBe(200);
    for (const [method, path, json] of [
      ["POST", "cancel", {}],
      ["POST", "unassign", undefined],
      ["PUT", "readiness", { blockerCodes: [] }],
      ["POST", "assign", { installerCompanyId: CRESTLINE }],
    ] as const) {
      expect((await admin(method, `/install-jobs/${job.id}/${path}`, json)).status).toBe(422);
    }
    // A document may still follow a terminal status (a warranty after completion).
    expect((await admin("POST", `/install-jobs/${job.id}/documents`, { category: "WARRANTY" })).status).toBe(201);
  });

  it("moving a job to another installer company is two changes: removal (tombstone), then assignment", async () => {
    const job = createJob(sandbox);
    await moveTo(sandbox, job.id, "ACKNOWLEDGED", job.version);
    sandbox.admin.installJobs.setReadiness(job.id, []);
    const moved = await admin("POST", `/install-jobs/${job.id}/assign`, { installerCompanyId: CRESTLINE });
    expect(moved.body).toMatchObject({
      installerCompanyId: CRESTLINE,
      version: 6,
      status: "ASSIGNED",
      technicianAssignments: [],
    });
    const events = sandbox.admin.events({ companyId: "org_sunrise" }).filter((e) => e.resource.id === job.id);
    expect(events.slice(-2).map((e) => [e.event, e.resource.version, e.data.installerCompanyId])).toEqual([
      ["install.job_unassigned", 5, VOLTWORKS],
      ["install.job_assigned", 6, CRESTLINE],
    ]);
  });

  it("accepts a completion report once, after COMPLETE, counting the installer's evidence", async () => {
    const job = createJob(sandbox);
    let version = job.version;
    for (const status of ["ACKNOWLEDGED", "ON_SITE", "COMPLETE"])
      version = await moveTo(sandbox, job.id, status, version);
    const photo = { kind: "photo", fileName: "a.jpg", contentType: "image/jpeg", contentBase64: "AAAA" };
    expect(
      (await api(sandbox, "POST", `/api/partner/v1/jobs/${job.id}/evidence`, { key: VOLTWORKS_KEY, json: photo }))
        .status,
    ).toBe(201);
    const accepted = await admin("POST", `/install-jobs/${job.id}/completion/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.completionAcceptedAt).toEqual(expect.any(String));
    expect(accepted.body.evidence).toHaveLength(1);
    expect((await admin("POST", `/install-jobs/${job.id}/completion/accept`)).status).toBe(409);
    const late = await api(sandbox, "POST", `/api/partner/v1/jobs/${job.id}/evidence`, {
      key: VOLTWORKS_KEY,
      json: photo,
    });
    expect(late.status).toBe(422);
  });

  it("manages technician memberships of installer companies only", async () => {
    const created = await admin("POST", "/technicians", { installerCompanyId: VOLTWORKS, displayName: "New Tech" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^mem_/), active: true });
    expect((await admin("POST", "/technicians", { installerCompanyId: "org_sunrise", displayName: "X" })).status).toBe(
      400,
    );
    const off = await admin("PATCH", `/technicians/${created.body.id}`, { active: false });
    expect(off.body).toMatchObject({ active: false });
    expect((await admin("PATCH", "/technicians/mem_nope", { active: false })).status).toBe(404);
  });
});
