import { randomUUID } from "node:crypto";
import { vi } from "vitest";
import type { NewInstallJob } from "../../../src/sandbox/admin/services/install-jobs/create-install-job.js";
import type { Sandbox, SandboxOptions } from "../../../src/sandbox/index.js";
import { newSandbox } from "../support.js";
import { FAST } from "../webhooks/support.js";

export const VOLTWORKS = "org_voltworks";
export const CRESTLINE = "org_crestline";
export const VOLTWORKS_KEY = "svc_test_VLTic0001.test_secret_voltworks_installer_01";
export const VOLTWORKS_READ_ONLY_KEY = "svc_test_VLTro0001.test_secret_voltworks_read_only_01";
export const CRESTLINE_KEY = "svc_test_CRSic0001.test_secret_crestline_installer_01";

export type InstallerSandbox = ReturnType<typeof newSandbox>;

/** An in-process sandbox with the default seed and fast webhook retries. */
export function installerSandbox(options: SandboxOptions = {}): InstallerSandbox {
  return newSandbox({ adminToken: "admin-token-for-installer-tests", webhooks: FAST, ...options });
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The exact bytes of the body, as text. */
  text: string;
  body: Record<string, unknown>;
}

/** One Installer API request. Writes get a fresh Idempotency-Key unless one is given (or `null`: none). */
export async function api(
  sandbox: Pick<Sandbox, "app">,
  method: string,
  path: string,
  init: { key?: string; json?: unknown; idempotencyKey?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.key) headers["x-api-key"] = init.key;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const write = method === "POST" || method === "PUT";
  const idempotencyKey = init.idempotencyKey === undefined && write ? randomUUID() : init.idempotencyKey;
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  const res = await sandbox.app.request(path, {
    method,
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (a document's content)
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** A status event body (§2.3) at the current time. */
export function statusEvent(status: string, expectedVersion: number, extra: Record<string, unknown> = {}) {
  return { status, occurredAt: new Date().toISOString(), expectedVersion, ...extra };
}

/** A §2.1 job of Sunrise Solar for the company's side to create, assigned to Voltworks unless told otherwise. */
export function newJob(overrides: Partial<NewInstallJob> = {}): NewInstallJob {
  return {
    companyId: "org_sunrise",
    customer: {
      name: "Test Customer",
      phone: "+1 602 555 0199",
      email: "test.customer@example.com",
      address: { line1: "1 Test Street", city: "Phoenix", state: "AZ", zip: "85004" },
    },
    scope: {
      packageName: "Solar 5 kW",
      systemType: "SOLAR_PV",
      equipment: [{ sku: "PNL-400", description: "400 W panel", qty: 12 }],
      accessories: [],
      supplierSources: [],
    },
    schedule: {
      status: "TENTATIVE",
      startsAt: "2027-01-10T15:00:00.000Z",
      endsAt: "2027-01-10T23:00:00.000Z",
      timeZone: "America/Phoenix",
    },
    installerCompanyId: VOLTWORKS,
    ...overrides,
  };
}

/** Creates a job through the company's side and returns its id and version. */
export function createJob(sandbox: InstallerSandbox, overrides: Partial<NewInstallJob> = {}) {
  const job = sandbox.admin.installJobs.create(newJob(overrides));
  return { id: job.id, version: job.version };
}

/** Posts a status event and expects it accepted; returns the job's new version. */
export async function moveTo(
  sandbox: InstallerSandbox,
  jobId: string,
  status: string,
  version: number,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const reply = await api(sandbox, "POST", `/api/partner/v1/jobs/${jobId}/status-events`, {
    key: VOLTWORKS_KEY,
    json: statusEvent(status, version, extra),
  });
  if (reply.status !== 201) throw new Error(`moving ${jobId} to ${status}: ${reply.status} ${reply.text}`);
  return (reply.body.resource as { version: number }).version;
}

export interface FeedItem {
  sequence: number;
  changedAt: string;
  resource: Record<string, unknown>;
}

/** Every item of a key's feed from a cursor (the start cursor by default), following nextCursor to the end. */
export async function readAll(
  sandbox: InstallerSandbox,
  key: string,
  cursor = "0",
): Promise<{ items: FeedItem[]; cursor: string }> {
  const items: FeedItem[] = [];
  for (;;) {
    const page = await api(sandbox, "GET", `/api/partner/v1/jobs?limit=100&cursor=${cursor}`, { key });
    if (page.status !== 200) throw new Error(`feed: ${page.status} ${page.text}`);
    items.push(...(page.body.resources as FeedItem[]));
    cursor = String(page.body.nextCursor);
    if (!page.body.hasMore) return { items, cursor };
  }
}

/** Every install.* event a subscription can ask for (§6.7), the on-demand test delivery aside. */
export const INSTALL_EVENTS = [
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

/** Subscribes a company's owner to install.* for a receiver, loading the shown secret into it (§6.5.2). */
export async function subscribeInstall(
  sandbox: InstallerSandbox,
  companyId: string,
  receiver: { url: string; secrets: Map<number, string> },
  extra: Record<string, unknown> = {},
): Promise<string> {
  const session = sandbox.admin.ownerSession(companyId).sessionToken;
  const res = await sandbox.app.request("/partner-api/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
    body: JSON.stringify({ url: receiver.url, events: INSTALL_EVENTS, ...extra }),
  });
  const created = (await res.json()) as { id: string; secret: string };
  if (res.status !== 201) throw new Error(`subscribe ${companyId}: ${res.status} ${JSON.stringify(created)}`);
  receiver.secrets.set(1, created.secret);
  return created.id;
}

/** Resolves once no delivery is pending: everything queued so far was answered. */
export async function drained(sandbox: InstallerSandbox): Promise<void> {
  try {
    await vi.waitUntil(() => sandbox.admin.stats().webhooks.deliveries.pending === 0, {
      timeout: 10_000,
      interval: 10,
    });
  } catch (error) {
    throw new Error("deliveries still pending", { cause: error });
  }
}
