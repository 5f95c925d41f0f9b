import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/http.js";
import {
  CompanySide,
  type JobResource,
  ROOMY_LIMITS,
  resourceOf,
  statusBody,
  subscribeOwner,
  write,
} from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";
import type { Delivery, WebhookReceiver } from "./support/webhook-receiver.js";

/** §6.7: the installation events an installer company can subscribe to (install.test has its own tests, §6.1). */
const INSTALL_EVENTS = [
  "install.job_assigned",
  "install.job_unassigned",
  "install.job_cancelled",
  "install.schedule_changed",
  "install.readiness_changed",
  "install.document_available",
  "install.status_changed",
  "install.completion_received",
  "install.scope_acknowledgement_required",
];

interface Envelope {
  id: string;
  event: string;
  apiVersion: string;
  schemaVersion: number;
  occurredAt: string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
}

let target: Target;
let company: CompanySide;
let installer: WebhookReceiver;
let owner: WebhookReceiver;
beforeAll(async () => {
  target = await openTarget({ limits: ROOMY_LIMITS });
  company = new CompanySide(target);
});
afterAll(async () => {
  await Promise.all([installer?.close(), owner?.close()]);
  await target.close();
});

const envelopes = (deliveries: Delivery[], jobId: string): Envelope[] =>
  deliveries
    .map((d) => JSON.parse(String(d.rawBody)) as Envelope)
    .filter((e) => e.resource.id === jobId)
    .sort((a, b) => a.resource.version - b.resource.version);

describe.runIf(HAS_COMPANY_SIDE)("§6.1 Envelope of install.* events (resource type installJob)", () => {
  let job: JobResource;
  let second: JobResource;
  let heard: Envelope[];
  beforeAll(async () => {
    installer = await subscribeOwner(target, target.fixtures.installerCompanyId, INSTALL_EVENTS, {
      partnerType: "installer_company",
    });
    owner = await subscribeOwner(target, target.fixtures.installJobCompanyId, INSTALL_EVENTS);

    job = await company.createJob();
    await company.changeScope(job.id);
    await company.setReadiness(job.id, ["PERMIT_PENDING"]);
    await company.addDocument(job.id, "PERMIT");
    let version = (await company.job(job.id)).version;
    const schedule = {
      status: "CONFIRMED",
      startsAt: "2027-07-01T15:00:00Z",
      endsAt: "2027-07-01T22:00:00Z",
      timeZone: "America/Phoenix",
    };
    const put = await write(target, "PUT", `/jobs/${job.id}/schedule`, { ...schedule, expectedVersion: version });
    version = resourceOf(put).version;
    for (const status of ["ACKNOWLEDGED", "ON_SITE", "COMPLETE"]) {
      const reply = await write(target, "POST", `/jobs/${job.id}/status-events`, statusBody(status, version));
      expect(reply.status).toBe(201);
      version = resourceOf(reply).version;
    }
    await write(target, "POST", `/jobs/${job.id}/evidence`, {
      kind: "photo",
      fileName: "done.jpg",
      contentType: "image/jpeg",
      contentBase64: Buffer.from("photo").toString("base64"),
    });
    await company.acceptCompletion(job.id);

    second = await company.createJob();
    await company.cancel(second.id, "not needed");
    const third = await company.createJob();
    await company.unassign(third.id);

    // job: assigned, scope, readiness, document, schedule, 3 status events, completion = 9; second: 2; third: 2.
    const deliveries = await installer.waitFor(13);
    heard = envelopes(deliveries, job.id);
    await owner.waitFor(13);
  });

  it("every install.* event is delivered, verified, with id evt_, apiVersion, schemaVersion 1, occurredAt", async () => {
    const all = installer.deliveries.map((d) => JSON.parse(String(d.rawBody)) as Envelope);
    expect(new Set(all.map((e) => e.event))).toEqual(new Set(INSTALL_EVENTS));
    for (const delivery of installer.deliveries) expect(delivery.verification.ok).toBe(true);
    for (const envelope of all) {
      expect(envelope).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        apiVersion: "2026-08-26",
        schemaVersion: 1,
        occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      });
      expect(envelope.resource.type).toBe("installJob");
    }
  });

  it("resource.version is the job version after the change, the one sent back as expectedVersion", async () => {
    expect(heard.map((e) => [e.event, e.resource.version])).toEqual([
      ["install.job_assigned", 2],
      ["install.scope_acknowledgement_required", 3],
      ["install.readiness_changed", 4],
      ["install.document_available", 5],
      ["install.schedule_changed", 6],
      ["install.status_changed", 7],
      ["install.status_changed", 8],
      ["install.status_changed", 9],
      ["install.completion_received", 10],
    ]);
    expect((await company.job(job.id)).version).toBe(10);
  });

  it("scope_acknowledgement_required carries the new scopeVersion", () => {
    const event = heard.find((e) => e.event === "install.scope_acknowledgement_required");
    expect(event?.data.scopeVersion).toBe(2);
  });

  it("completion_received carries evidence counts", () => {
    const event = heard.find((e) => e.event === "install.completion_received");
    expect(event?.data.evidence).toEqual({ photos: 1, documents: 0 });
  });

  it("document_available carries a signed URL that fetches the document for the assigned company only", async () => {
    const event = heard.find((e) => e.event === "install.document_available");
    const document = event?.data.document as { id: string; url: string };
    expect(document.id).toMatch(/^doc_/);
    expect((await call(target, "GET", document.url, { key: target.keys.installerCompany })).status).toBe(200);
    expect((await call(target, "GET", document.url, { key: target.keys.otherInstallerCompany })).status).toBe(404);
  });

  it("job_cancelled and job_unassigned reach the installer company; job_unassigned carries nothing of the job", () => {
    const [assigned, cancelled] = envelopes(installer.deliveries, second.id);
    expect(assigned?.event).toBe("install.job_assigned");
    expect(cancelled).toMatchObject({ event: "install.job_cancelled", resource: { version: 3 } });
    const unassigned = installer.deliveries
      .map((d) => JSON.parse(String(d.rawBody)) as Envelope)
      .find((e) => e.event === "install.job_unassigned");
    expect(unassigned?.data).toEqual({
      jobId: unassigned?.resource.id,
      installerCompanyId: target.fixtures.installerCompanyId,
    });
  });

  it("the job's own company hears the same events (§1 licensee: every event of its company)", () => {
    const ownerHeard = envelopes(owner.deliveries, job.id).map((e) => [e.event, e.resource.version]);
    expect(ownerHeard).toEqual(heard.map((e) => [e.event, e.resource.version]));
  });
});
