import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../webhooks/support.js";
import {
  api,
  CRESTLINE,
  createJob,
  drained,
  type InstallerSandbox,
  installerSandbox,
  moveTo,
  subscribeInstall,
  VOLTWORKS,
} from "./support.js";

let sandbox: InstallerSandbox;
const receivers: Record<string, Receiver> = {};
beforeEach(async () => {
  sandbox = installerSandbox();
  for (const company of [VOLTWORKS, CRESTLINE, "org_sunrise", "org_brightline"]) {
    receivers[company] = await startReceiver();
  }
});
afterEach(async () => {
  sandbox.close();
  await Promise.all(Object.values(receivers).map((r) => r.close()));
});

/** What a company's receiver got, in version order (deliveries to one endpoint may overtake each other). */
const heard = (company: string) =>
  (receivers[company]?.received ?? [])
    .map((r) => ({ event: r.envelope.event, resource: r.envelope.resource, verified: r.verification.ok }))
    .sort((a, b) => a.resource.version - b.resource.version);

async function subscribeAll(): Promise<void> {
  await subscribeInstall(sandbox, VOLTWORKS, receivers[VOLTWORKS] as Receiver, { partnerType: "installer_company" });
  await subscribeInstall(sandbox, CRESTLINE, receivers[CRESTLINE] as Receiver, { partnerType: "installer_company" });
  await subscribeInstall(sandbox, "org_sunrise", receivers.org_sunrise as Receiver);
  await subscribeInstall(sandbox, "org_brightline", receivers.org_brightline as Receiver);
}

describe("§6.1, §1, §5.6: an install.* event reaches the installer company the job was assigned to, and the job's company", () => {
  it("a change reaches the assigned installer company and the job's company only, signed, resource = installJob", async () => {
    await subscribeAll();
    const job = createJob(sandbox);
    const version = await moveTo(sandbox, job.id, "ACKNOWLEDGED", job.version);
    await drained(sandbox);
    const expected = [
      { event: "install.job_assigned", resource: { type: "installJob", id: job.id, version: 2 }, verified: true },
      { event: "install.status_changed", resource: { type: "installJob", id: job.id, version }, verified: true },
    ];
    expect(heard(VOLTWORKS)).toEqual(expected);
    expect(heard("org_sunrise")).toEqual(expected);
    expect(heard(CRESTLINE)).toEqual([]);
    expect(heard("org_brightline")).toEqual([]);
  });

  it("job_unassigned reaches the company removed; what follows reaches the new one, never the old", async () => {
    await subscribeAll();
    const job = createJob(sandbox);
    sandbox.admin.installJobs.assign(job.id, CRESTLINE);
    sandbox.admin.installJobs.setReadiness(job.id, ["PERMIT_PENDING"]);
    await drained(sandbox);
    const resource = (version: number) => ({ type: "installJob", id: job.id, version });
    expect(heard(VOLTWORKS).map((h) => [h.event, h.resource])).toEqual([
      ["install.job_assigned", resource(2)],
      ["install.job_unassigned", resource(3)],
    ]);
    expect(heard(CRESTLINE).map((h) => [h.event, h.resource])).toEqual([
      ["install.job_assigned", resource(4)],
      ["install.readiness_changed", resource(5)],
    ]);
    expect(heard("org_sunrise").map((h) => h.event)).toEqual([
      "install.job_assigned",
      "install.job_unassigned",
      "install.job_assigned",
      "install.readiness_changed",
    ]);
    const unassigned = receivers[VOLTWORKS]?.received.find((r) => r.envelope.event === "install.job_unassigned");
    expect(unassigned?.envelope.data).toEqual({ jobId: job.id, installerCompanyId: VOLTWORKS });
  });

  it("a change while no installer company is assigned reaches the job's company only", async () => {
    await subscribeAll();
    const job = createJob(sandbox, { installerCompanyId: undefined });
    sandbox.admin.installJobs.setReadiness(job.id, ["DEPOSIT_PENDING"]);
    await drained(sandbox);
    expect(heard("org_sunrise").map((h) => h.event)).toEqual(["install.readiness_changed"]);
    for (const company of [VOLTWORKS, CRESTLINE, "org_brightline"]) expect(heard(company)).toEqual([]);
  });

  it("§3.2: a schedule change by either side reaches the other side (and the installer's by the company)", async () => {
    await subscribeAll();
    const job = createJob(sandbox);
    const reply = await api(sandbox, "PUT", `/api/partner/v1/jobs/${job.id}/schedule`, {
      key: "svc_test_VLTic0001.test_secret_voltworks_installer_01",
      json: {
        status: "CONFIRMED",
        startsAt: "2027-02-01T15:00:00Z",
        endsAt: "2027-02-01T20:00:00Z",
        timeZone: "America/Phoenix",
        expectedVersion: 2,
      },
    });
    expect(reply.status).toBe(200);
    sandbox.admin.installJobs.changeSchedule(job.id, {
      status: "CONFIRMED",
      startsAt: "2027-02-02T15:00:00.000Z",
      endsAt: "2027-02-02T20:00:00.000Z",
      timeZone: "America/Phoenix",
    });
    await drained(sandbox);
    const changedBy = (company: string) =>
      (receivers[company]?.received ?? [])
        .filter((r) => r.envelope.event === "install.schedule_changed")
        .sort((a, b) => a.envelope.resource.version - b.envelope.resource.version)
        .map((r) => r.envelope.data.changedBy);
    expect(changedBy("org_sunrise")).toEqual(["installer", "company"]);
    expect(changedBy(VOLTWORKS)).toEqual(["installer", "company"]);
  });

  it("§4.2 rule 2: an installer subscription naming its key does not hear back the change that key made", async () => {
    const hook = receivers[VOLTWORKS] as Receiver;
    await subscribeInstall(sandbox, VOLTWORKS, hook, {
      partnerType: "installer_company",
      partnerKeyIds: ["svc_test_VLTic0001"],
    });
    const job = createJob(sandbox);
    const version = await moveTo(sandbox, job.id, "ACKNOWLEDGED", job.version);
    sandbox.admin.installJobs.setReadiness(job.id, ["PERMIT_PENDING"]);
    await drained(sandbox);
    expect(heard(VOLTWORKS).map((h) => [h.event, h.resource.version])).toEqual([
      ["install.job_assigned", 2],
      ["install.readiness_changed", version + 1],
    ]);
  });
});

describe("§6.1 data of install.* events", () => {
  it("scope_acknowledgement_required carries the new scopeVersion; completion_received evidence counts", async () => {
    const hook = receivers[VOLTWORKS] as Receiver;
    await subscribeInstall(sandbox, VOLTWORKS, hook, { partnerType: "installer_company" });
    const job = createJob(sandbox);
    sandbox.admin.installJobs.changeScope(job.id, {
      packageName: "Solar 7 kW",
      systemType: "SOLAR_PV",
      equipment: [],
      accessories: [],
      supplierSources: [],
    });
    let version = sandbox.admin.installJobs.read(job.id).version;
    for (const status of ["ACKNOWLEDGED", "ON_SITE", "COMPLETE"])
      version = await moveTo(sandbox, job.id, status, version);
    for (const [kind, fileName] of [
      ["photo", "roof.jpg"],
      ["photo", "panel.jpg"],
      ["document", "report.pdf"],
    ]) {
      const upload = await api(sandbox, "POST", `/api/partner/v1/jobs/${job.id}/evidence`, {
        key: "svc_test_VLTic0001.test_secret_voltworks_installer_01",
        json: { kind, fileName, contentType: "application/octet-stream", contentBase64: "aGVsbG8=" },
      });
      expect(upload.status).toBe(201);
    }
    sandbox.admin.installJobs.acceptCompletion(job.id);
    await drained(sandbox);
    const data = (event: string, version?: number) =>
      hook.received.find(
        (r) => r.envelope.event === event && (version === undefined || r.envelope.resource.version === version),
      )?.envelope.data;
    expect(data("install.scope_acknowledgement_required")).toMatchObject({ jobId: job.id, scopeVersion: 2 });
    expect(data("install.status_changed", 4)).toMatchObject({
      previousStatus: "ASSIGNED",
      status: "ACKNOWLEDGED",
      scopeVersionAcknowledged: 2,
    });
    expect(data("install.completion_received")).toMatchObject({ evidence: { photos: 2, documents: 1 } });
  });
});
