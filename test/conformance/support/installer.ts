import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { call, type Reply } from "./http.js";
import type { Target } from "./target.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

/**
 * The Installer API as a partner calls it (§4.1), and the company's side as the sandbox admin API drives it. Literal
 * fixtures from the spec's words and numbers; nothing is taken from the project's own schemas.
 */

export const API = "/api/partner/v1";

/**
 * A file that drives jobs through the table sends hundreds of requests: the local sandbox gets room for them (§8's
 * limits have their own file, s08-installer-limits), and a remote target's 429s are waited out (http.ts).
 */
export const ROOMY_LIMITS = {
  key: { limit: 100_000, windowMs: 60_000 },
  owner: { limit: 100_000, windowMs: 60_000 },
};

/** §3.1 states; §2.3 statuses an installer posts; §2.3 blocker codes. */
export const STATES = [
  "ASSIGNED",
  "ACKNOWLEDGED",
  "EN_ROUTE",
  "ON_SITE",
  "BLOCKED",
  "IN_PROGRESS",
  "COMPLETE",
  "CANCELLED",
] as const;
export type State = (typeof STATES)[number];
export const POSTED = ["ACKNOWLEDGED", "EN_ROUTE", "ON_SITE", "BLOCKED", "IN_PROGRESS", "COMPLETE"] as const;
export const BLOCKER_CODES = [
  "CUSTOMER_UNAVAILABLE",
  "SITE_NOT_READY",
  "MATERIAL_MISSING",
  "EQUIPMENT_DAMAGED",
  "PERMIT",
  "WEATHER",
  "SAFETY",
  "OTHER",
] as const;

/** The §3.1 table, row by row: from → the statuses an installer may post. */
export const TABLE: ReadonlyArray<[State, string]> = [
  ["ASSIGNED", "ACKNOWLEDGED"],
  ["ASSIGNED", "BLOCKED"],
  ["ACKNOWLEDGED", "EN_ROUTE"],
  ["ACKNOWLEDGED", "ON_SITE"],
  ["ACKNOWLEDGED", "BLOCKED"],
  ["EN_ROUTE", "ON_SITE"],
  ["EN_ROUTE", "BLOCKED"],
  ["ON_SITE", "IN_PROGRESS"],
  ["ON_SITE", "BLOCKED"],
  ["ON_SITE", "COMPLETE"],
  ["BLOCKED", "ACKNOWLEDGED"],
  ["BLOCKED", "EN_ROUTE"],
  ["BLOCKED", "ON_SITE"],
  ["BLOCKED", "IN_PROGRESS"],
  ["IN_PROGRESS", "BLOCKED"],
  ["IN_PROGRESS", "COMPLETE"],
];

/** A path through the table from ASSIGNED to each state (CANCELLED is the company's). */
export const PATH_TO: Record<Exclude<State, "CANCELLED">, string[]> = {
  ASSIGNED: [],
  ACKNOWLEDGED: ["ACKNOWLEDGED"],
  EN_ROUTE: ["ACKNOWLEDGED", "EN_ROUTE"],
  ON_SITE: ["ACKNOWLEDGED", "ON_SITE"],
  BLOCKED: ["BLOCKED"],
  IN_PROGRESS: ["ACKNOWLEDGED", "ON_SITE", "IN_PROGRESS"],
  COMPLETE: ["ACKNOWLEDGED", "ON_SITE", "COMPLETE"],
};

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
export const iso = (ms: number) => new Date(ms).toISOString();

/** A §2.3 body; BLOCKED gets a blockerCode unless one is given. */
export function statusBody(status: string, expectedVersion: number, extra: Record<string, unknown> = {}) {
  return {
    status,
    occurredAt: iso(Date.now()),
    expectedVersion,
    ...(status === "BLOCKED" ? { blockerCode: "SITE_NOT_READY" } : {}),
    ...extra,
  };
}

export interface JobResource {
  id: string;
  version: number;
  status: State;
  scope: { scopeVersion: number };
  readiness: { ready: boolean; blockerCodes: string[] };
  schedule: { status: string; startsAt: string | null; endsAt: string | null; timeZone: string } | null;
  technicianAssignments: Array<{ membershipId: string; assignedAt: string }>;
  documents: Array<{ id: string; category: string; availableAt: string }>;
  [field: string]: unknown;
}

export interface FeedItem {
  sequence: number;
  changedAt: string;
  resource: JobResource;
}

/**
 * The owner login of a company (§5.7): the sandbox's fixed test password, or the one given for it in
 * `CONFORMANCE_OWNERS` (`{"passwords": {"org_…": "…"}}`) when the suite runs against another deployment.
 */
export function ownerPassword(companyId: string): string {
  const given = process.env.CONFORMANCE_OWNERS
    ? (JSON.parse(process.env.CONFORMANCE_OWNERS) as { passwords?: Record<string, string> }).passwords
    : undefined;
  return given?.[companyId] ?? `test_owner_${companyId}`;
}

/** A receiver on this machine, subscribed to `events` by a company's owner (§4.3), holding the shown secret. */
export async function subscribeOwner(
  target: Target,
  companyId: string,
  events: string[],
  extra: Record<string, unknown> = {},
): Promise<WebhookReceiver> {
  const hook = await startWebhookReceiver();
  const login = await call(target, "POST", "/partner-api/session", {
    json: { companyId, password: ownerPassword(companyId) },
  });
  expect(login.status).toBe(201);
  const session = (login.body as { sessionToken: string }).sessionToken;
  const created = await call(target, "POST", "/partner-api/webhooks", {
    json: { url: hook.url, events, ...extra },
    headers: { authorization: `Bearer ${session}` },
  });
  expect(created.status).toBe(201);
  const { secret, secretVersion } = created.body as { secret: string; secretVersion: number };
  hook.secrets.set(secretVersion, secret);
  return hook;
}

/** A write with an Idempotency-Key (a fresh one unless given). */
export function write(
  target: Target,
  method: "POST" | "PUT",
  path: string,
  json: unknown,
  options: { key?: string; idempotencyKey?: string } = {},
): Promise<Reply> {
  return call(target, method, `${API}${path}`, {
    key: options.key ?? target.keys.installerCompany,
    json,
    headers: { "idempotency-key": options.idempotencyKey ?? randomUUID() },
  });
}

export function read(target: Target, path: string, key = target.keys.installerCompany): Promise<Reply> {
  return call(target, "GET", `${API}${path}`, { key });
}

export const resourceOf = (reply: Reply) => (reply.body as { resource: JobResource }).resource;
export const body = (reply: Reply) => reply.body as Record<string, unknown>;

/** Every feed item of a key from a cursor (the start cursor by default), to the end. */
export async function feedFrom(
  target: Target,
  key = target.keys.installerCompany,
  cursor = "0",
): Promise<{ items: FeedItem[]; cursor: string }> {
  const items: FeedItem[] = [];
  for (;;) {
    const page = await call(target, "GET", `${API}/jobs?limit=100&cursor=${cursor}`, { key });
    expect(page.status).toBe(200);
    const answer = page.body as { resources: FeedItem[]; nextCursor: string; hasMore: boolean };
    items.push(...answer.resources);
    cursor = answer.nextCursor;
    if (!answer.hasMore) return { items, cursor };
  }
}

/** The jobs a key can see now, each at its latest item (tombstoned ones left out). */
export async function visibleJobs(target: Target, key = target.keys.installerCompany): Promise<JobResource[]> {
  const latest = new Map<string, JobResource | null>();
  for (const item of (await feedFrom(target, key)).items) {
    latest.set(item.resource.id, "unassigned" in item.resource ? null : item.resource);
  }
  return [...latest.values()].filter((job): job is JobResource => job !== null);
}

/** A job the key can see in a non-terminal state: a forbidden transition on it is a 422 and changes nothing. */
export async function openJob(target: Target, key = target.keys.installerCompany): Promise<JobResource> {
  const job = (await visibleJobs(target, key)).find((j) => j.status !== "COMPLETE" && j.status !== "CANCELLED");
  if (!job) throw new Error("the target has no open job for this key");
  return job;
}

/** A status the table forbids from `from` (§3.1 rule 1), for no-change probes. */
export function forbiddenFrom(from: State): string {
  const allowed = TABLE.filter(([f]) => f === from).map(([, to]) => to);
  const forbidden = POSTED.find((to) => to !== from && !allowed.includes(to));
  if (!forbidden) throw new Error(`every status is allowed from ${from}`);
  return forbidden;
}

export interface RecordedEvent {
  sequence: number;
  event: string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
}

/** The company's side of install jobs through the sandbox admin API. */
export class CompanySide {
  constructor(private readonly target: Target) {}

  async #admin(method: string, path: string, json?: unknown): Promise<Record<string, unknown>> {
    const token = this.target.adminToken;
    if (!token) throw new Error("the company's side needs the sandbox admin API (CONFORMANCE_ADMIN_TOKEN)");
    const reply = await call(this.target, method, `/sandbox/admin${path}`, {
      json,
      headers: { authorization: `Bearer ${token}` },
    });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.text}`);
    return reply.body as Record<string, unknown>;
  }

  /** A new job of the company, assigned to the installer company of `installerCompany` unless told otherwise. */
  async createJob(overrides: Record<string, unknown> = {}): Promise<JobResource> {
    const created = await this.#admin("POST", "/install-jobs", {
      companyId: this.target.fixtures.installJobCompanyId,
      customer: {
        name: "Conformance Customer",
        phone: "+1 602 555 0100",
        email: "conformance.customer@example.com",
        address: { line1: "1 Conformance Way", city: "Phoenix", state: "AZ", zip: "85004" },
      },
      scope: {
        packageName: "Solar 6 kW",
        systemType: "SOLAR_PV",
        equipment: [{ sku: "PNL-400", description: "400 W panel", qty: 15 }],
      },
      schedule: {
        status: "TENTATIVE",
        startsAt: iso(Date.now() + 14 * DAY),
        endsAt: iso(Date.now() + 14 * DAY + 8 * 3_600_000),
        timeZone: "America/Phoenix",
      },
      installerCompanyId: this.target.fixtures.installerCompanyId,
      ...overrides,
    });
    return this.job(String(created.id));
  }

  /** The job as the installer reads it now. */
  async job(jobId: string, key = this.target.keys.installerCompany): Promise<JobResource> {
    const reply = await read(this.target, `/jobs/${jobId}`, key);
    expect(reply.status).toBe(200);
    return resourceOf(reply);
  }

  /** A new job driven through the table to `state` by the installer (CANCELLED: cancelled by the company). */
  async jobIn(state: State): Promise<JobResource> {
    const job = await this.createJob();
    if (state === "CANCELLED") {
      await this.cancel(job.id);
      return this.job(job.id);
    }
    let version = job.version;
    for (const status of PATH_TO[state]) {
      const reply = await write(this.target, "POST", `/jobs/${job.id}/status-events`, statusBody(status, version));
      expect(reply.status).toBe(201);
      version = resourceOf(reply).version;
    }
    return this.job(job.id);
  }

  assign(jobId: string, installerCompanyId: string) {
    return this.#admin("POST", `/install-jobs/${jobId}/assign`, { installerCompanyId });
  }
  unassign(jobId: string) {
    return this.#admin("POST", `/install-jobs/${jobId}/unassign`);
  }
  cancel(jobId: string, reason?: string) {
    return this.#admin("POST", `/install-jobs/${jobId}/cancel`, reason ? { reason } : {});
  }
  changeScope(jobId: string, packageName = "Solar 8 kW") {
    return this.#admin("PUT", `/install-jobs/${jobId}/scope`, {
      packageName,
      systemType: "SOLAR_PV",
      equipment: [{ sku: "PNL-400", description: "400 W panel", qty: 20 }],
    });
  }
  setReadiness(jobId: string, blockerCodes: string[]) {
    return this.#admin("PUT", `/install-jobs/${jobId}/readiness`, { blockerCodes });
  }
  addDocument(jobId: string, category = "PERMIT") {
    return this.#admin("POST", `/install-jobs/${jobId}/documents`, { category });
  }
  changeSchedule(jobId: string, schedule: Record<string, unknown>) {
    return this.#admin("PUT", `/install-jobs/${jobId}/schedule`, schedule);
  }
  acceptCompletion(jobId: string) {
    return this.#admin("POST", `/install-jobs/${jobId}/completion/accept`);
  }
  addTechnician(displayName: string, installerCompanyId = this.target.fixtures.installerCompanyId) {
    return this.#admin("POST", "/technicians", { installerCompanyId, displayName });
  }
  setTechnicianActive(membershipId: string, active: boolean) {
    return this.#admin("PATCH", `/technicians/${membershipId}`, { active });
  }
  /** The events recorded about one job, in order (the admin event list, paged by sequence). */
  async eventsOf(jobId: string): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    let after = 0;
    for (;;) {
      const page = (await this.#admin("GET", `/events?after=${after}&limit=1000`)) as { events: RecordedEvent[] };
      found.push(...page.events.filter((e) => e.resource.id === jobId));
      const last = page.events.at(-1);
      if (!last || page.events.length < 1000) return found;
      after = last.sequence;
    }
  }
}
