import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InstallJobRow } from "../../../src/sandbox/db/schema/index.js";
import { installerJob } from "../../../src/sandbox/installer/jobs/projection.js";
import { type Receiver, startReceiver } from "../webhooks/support.js";
import {
  type Answer,
  api,
  CRESTLINE,
  CRESTLINE_KEY,
  drained,
  INSTALL_EVENTS,
  type InstallerSandbox,
  installerSandbox,
  newJob,
  statusEvent,
  subscribeInstall,
  VOLTWORKS,
  VOLTWORKS_KEY,
} from "./support.js";

/**
 * §1 installer company, §2.1: never email, price, options, margin, financing, payments or signatures, nor any other
 * customer of the company. Each forbidden value is a marker that appears nowhere else.
 */
const FORBIDDEN = {
  email: "leak-email-7f3a@forbidden.example",
  quoteAmount: "918273.64",
  currency: "XQZ",
  optionName: "LEAK-OPTION-NAME",
  optionPrice: "827364.55",
  margin: "0.917364",
  financingProvider: "LEAK-FINANCING-PROVIDER",
  financingAmount: "736455.12",
  paymentMethod: "LEAK-PAYMENT-METHOD",
  paymentAmount: "645546.01",
  paidAt: "2026-01-02T03:04:05.678Z",
  signer: "LEAK-SIGNATURE-SIGNER",
  signedAt: "2026-02-03T04:05:06.789Z",
};
const OTHER_CUSTOMER = "LEAK-OTHER-CUSTOMER-NAME";

const commercial = {
  quotePrice: { amount: Number(FORBIDDEN.quoteAmount), currency: FORBIDDEN.currency },
  options: [{ name: FORBIDDEN.optionName, price: Number(FORBIDDEN.optionPrice) }],
  margin: Number(FORBIDDEN.margin),
  financing: { provider: FORBIDDEN.financingProvider, amount: Number(FORBIDDEN.financingAmount), termMonths: 97 },
  payments: [{ amount: Number(FORBIDDEN.paymentAmount), method: FORBIDDEN.paymentMethod, paidAt: FORBIDDEN.paidAt }],
  signatures: [{ signer: FORBIDDEN.signer, signedAt: FORBIDDEN.signedAt }],
};

let sandbox: InstallerSandbox;
let installer: Receiver;
let company: Receiver;
let otherInstaller: Receiver;
beforeEach(async () => {
  sandbox = installerSandbox();
  installer = await startReceiver();
  company = await startReceiver();
  otherInstaller = await startReceiver();
});
afterEach(async () => {
  sandbox.close();
  await Promise.all([installer.close(), company.close(), otherInstaller.close()]);
});

describe("§2.1 the installer-safe projection: one allow-list", () => {
  it("has exactly the §2.1 fields, and nested objects exactly theirs, whatever else the record holds", () => {
    const job = sandbox.admin.installJobs.create(newJob({ commercial }));
    const row = { ...job } as InstallJobRow & Record<string, unknown>;
    // A record that grew fields the projection does not name must not leak them.
    (row.customer as unknown as Record<string, unknown>).ssn = "123-45-6789";
    (row.scope as unknown as Record<string, unknown>).cost = 1234;
    const projected = installerJob({ job: row, companyName: "Sunrise Solar Co.", documents: [] });
    expect(Object.keys(projected).sort()).toEqual(
      [
        "id",
        "version",
        "status",
        "company",
        "customer",
        "scope",
        "schedule",
        "readiness",
        "documents",
        "technicianAssignments",
        "updatedAt",
      ].sort(),
    );
    expect(Object.keys(projected.customer).sort()).toEqual(["address", "name", "phone"]);
    expect(Object.keys(projected.customer.address).sort()).toEqual(["city", "line1", "state", "zip"]);
    expect(Object.keys(projected.scope).sort()).toEqual(
      ["accessories", "equipment", "packageName", "scopeVersion", "supplierSources", "systemType"].sort(),
    );
    expect(projected.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(JSON.stringify(projected)).not.toMatch(/ssn|123-45-6789|cost|1234/);
  });
});

describe("§1, §2.1: no forbidden field in any Installer API answer or install.* delivery, byte by byte", () => {
  it("scans every answer and every delivery of a job's whole life for the company's data", async () => {
    await subscribeInstall(sandbox, VOLTWORKS, installer, { partnerType: "installer_company" });
    await subscribeInstall(sandbox, "org_sunrise", company);
    await subscribeInstall(sandbox, CRESTLINE, otherInstaller, { partnerType: "installer_company" });
    const jobs = sandbox.admin.installJobs;
    const customer = { ...newJob().customer, email: FORBIDDEN.email };
    const job = jobs.create(newJob({ customer, commercial }));
    const cancelled = jobs.create(newJob({ customer, commercial }));
    const removed = jobs.create(newJob({ customer, commercial }));
    const other = jobs.create(
      newJob({ customer: { ...customer, name: OTHER_CUSTOMER }, commercial, installerCompanyId: CRESTLINE }),
    );

    const answers: Answer[] = [];
    const call = async (method: string, path: string, json?: unknown, idempotencyKey?: string) => {
      const reply = await api(sandbox, method, path, { key: VOLTWORKS_KEY, json, idempotencyKey });
      answers.push(reply);
      return reply;
    };
    const path = `/api/partner/v1/jobs/${job.id}`;
    const version = () => jobs.read(job.id).version;

    await call("GET", "/api/partner/v1/jobs");
    await call("GET", "/api/partner/v1/jobs?cursor=0&limit=100");
    await call("GET", path);
    await call("GET", "/api/partner/v1/technicians");
    const acknowledge = statusEvent("ACKNOWLEDGED", version(), { note: "seen" });
    expect((await call("POST", `${path}/status-events`, acknowledge, "scan-1")).status).toBe(201);
    await call("POST", `${path}/status-events`, acknowledge, "scan-1");
    expect((await call("POST", `${path}/status-events`, statusEvent("EN_ROUTE", 1))).status).toBe(409);
    expect((await call("POST", `${path}/status-events`, statusEvent("COMPLETE", version()))).status).toBe(422);
    expect((await call("POST", `${path}/status-events`, { status: "BLOCKED" })).status).toBe(400);
    jobs.changeScope(job.id, { ...newJob().scope, packageName: "Changed scope" });
    jobs.setReadiness(job.id, ["PERMIT_PENDING"]);
    const { documentId } = jobs.addDocument({ jobId: job.id, category: "PERMIT" });
    jobs.changeSchedule(job.id, {
      status: "CONFIRMED",
      startsAt: "2027-03-01T15:00:00.000Z",
      endsAt: "2027-03-01T22:00:00.000Z",
      timeZone: "America/Phoenix",
    });
    const schedule = {
      status: "CONFIRMED",
      startsAt: "2027-03-02T15:00:00Z",
      endsAt: "2027-03-02T22:00:00Z",
      timeZone: "America/Phoenix",
      expectedVersion: version(),
    };
    expect((await call("PUT", `${path}/schedule`, schedule)).status).toBe(200);
    const team = { membershipIds: ["mem_voltworks_01", "mem_voltworks_02"], expectedVersion: version() };
    expect((await call("PUT", `${path}/technician-assignments`, team)).status).toBe(200);
    const link = await call("GET", `/api/partner/v1/documents/${documentId}`);
    const url = (link.body.resource as { url: string }).url;
    expect((await call("GET", url)).status).toBe(200);
    for (const status of ["ON_SITE", "IN_PROGRESS", "COMPLETE"]) {
      expect((await call("POST", `${path}/status-events`, statusEvent(status, version()))).status).toBe(201);
    }
    const photo = { kind: "photo", fileName: "done.jpg", contentType: "image/jpeg", contentBase64: "/9j/4AAQ" };
    expect((await call("POST", `${path}/evidence`, photo)).status).toBe(201);
    await call("GET", `${path}/evidence`);
    jobs.acceptCompletion(job.id);
    jobs.cancel(cancelled.id, "customer changed their mind");
    jobs.unassign(removed.id);
    expect((await call("GET", `/api/partner/v1/jobs/${other.id}`)).status).toBe(404);
    await call("GET", "/api/partner/v1/jobs?cursor=0&limit=100");
    answers.push(await api(sandbox, "GET", "/api/partner/v1/jobs?cursor=0", { key: CRESTLINE_KEY }));

    await drained(sandbox);
    const delivered = [...installer.received, ...company.received, ...otherInstaller.received];
    // Positive controls: the company holds every forbidden value, and the scan saw every kind of install.* event.
    const stored = JSON.stringify(jobs.read(job.id));
    for (const marker of Object.values(FORBIDDEN)) expect(stored).toContain(marker);
    expect(new Set(installer.received.map((r) => r.envelope.event))).toEqual(new Set(INSTALL_EVENTS));
    expect(answers.length).toBeGreaterThan(20);

    const bytes = [...answers.map((a) => a.text), ...delivered.map((d) => d.rawBody.toString("utf8"))];
    for (const text of bytes) {
      for (const marker of Object.values(FORBIDDEN)) expect(text).not.toContain(marker);
    }
    const voltworksBytes = [...answers.slice(0, -1).map((a) => a.text), ...installer.received.map((d) => d.rawBody)];
    for (const text of voltworksBytes) expect(String(text)).not.toContain(OTHER_CUSTOMER);
    // …while the other installer company does read its own customer (the marker is findable).
    expect(otherInstaller.received.some((d) => d.rawBody.toString("utf8").includes(OTHER_CUSTOMER))).toBe(true);
  });
});
