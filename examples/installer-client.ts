/**
 * An installation company's client of the Installer API v1, as §6.7 describes one:
 * - it subscribes to the four typical events — install.job_assigned, install.schedule_changed,
 *   install.readiness_changed, install.scope_acknowledgement_required — and verifies every delivery with the bundled
 *   receiver helper (§6.3) before it believes it;
 * - it polls the change feed at most once a minute, as a safety net, from a cursor it persists (§4.1, §8);
 * - every write gets a UUID Idempotency-Key that is persisted before the request is sent (§8), so a lost answer, a
 *   5xx or a crash is retried with the same key and never applied twice (§7);
 * - on a 409 for a stale version it re-reads the job and decides again with a new key (§3.1 rule 2, §7).
 *
 * Run it against the sandbox (`npm start`, or `partner-gateway sandbox`):
 *   INSTALLER_API_KEY=svc_test_VLTic0001.test_secret_voltworks_installer_01 \
 *   INSTALLER_OWNER=org_voltworks:test_owner_org_voltworks npx tsx examples/installer-client.ts
 * Other settings: INSTALLER_BASE_URL (http://127.0.0.1:8090), INSTALLER_STATE (.installer-client.json),
 * INSTALLER_WEBHOOK_PORT (9998).
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { createWebhookVerifier, type WebhookEnvelope } from "../src/receiver/index.js";

export const TYPICAL_EVENTS = [
  "install.job_assigned",
  "install.schedule_changed",
  "install.readiness_changed",
  "install.scope_acknowledgement_required",
];
const POLL_INTERVAL_MS = 60_000;
/** The documented start cursor: the first poll lists every job assigned to the company. */
const START_CURSOR = "0";
const MAX_ATTEMPTS = 5;

export interface Job {
  id: string;
  version: number;
  status: string;
  readiness: { ready: boolean; blockerCodes: string[] };
  [field: string]: unknown;
}

/** A write as persisted before it is sent: the same key and body go out again after a crash. */
interface PendingWrite {
  kind: "status" | "schedule" | "assignments";
  method: "POST" | "PUT";
  path: string;
  jobId: string;
  body: Record<string, unknown> & { expectedVersion: number };
}

interface ClientState {
  cursor: string | null;
  lastPollAt: number | null;
  jobs: Record<string, Job>;
  pending: Record<string, PendingWrite>;
  /** Webhook secrets by version, shown once when subscribing: a real client keeps them in its secret manager. */
  secrets: Record<string, string>;
}

export interface InstallerClientOptions {
  /** The one configuration place of the host (§1: it will move, with a redirect and notice). */
  baseUrl: string;
  apiKey: string;
  statePath: string;
  now?: () => number;
  fetch?: typeof fetch;
  /** Called with every verified event after it was applied. */
  onEvent?: (event: WebhookEnvelope) => void;
  /** First wait before a retry without retry-after, doubled each time (250 ms). */
  retryBaseMs?: number;
}

export class InstallerApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(`${status}: ${String(body.error ?? "")}`);
  }
}

export class InstallerClient {
  readonly state: ClientState;
  readonly #options: InstallerClientOptions;
  readonly #now: () => number;
  readonly #fetch: typeof fetch;
  readonly #verifier;

  constructor(options: InstallerClientOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#fetch = options.fetch ?? fetch;
    this.state = existsSync(options.statePath)
      ? (JSON.parse(readFileSync(options.statePath, "utf8")) as ClientState)
      : { cursor: null, lastPollAt: null, jobs: {}, pending: {}, secrets: {} };
    // Secrets are looked up per delivery, so one loaded later (a rotation, §6.5.2) is used at once.
    this.#verifier = createWebhookVerifier({ secrets: { secretFor: (version) => this.state.secrets[version] } });
  }

  /** Subscribes the company's owner to the four typical events; its own key's changes are not sent back (§4.2). */
  async subscribe(webhookUrl: string, owner: { companyId: string; password: string }): Promise<string> {
    const login = await this.#json("POST", "/partner-api/session", { body: owner });
    const keyId = this.#options.apiKey.split(".")[0] ?? "";
    const created = await this.#json("POST", "/partner-api/webhooks", {
      body: { url: webhookUrl, events: TYPICAL_EVENTS, partnerType: "installer_company", partnerKeyIds: [keyId] },
      headers: { authorization: `Bearer ${String(login.sessionToken)}` },
    });
    this.state.secrets[String(created.secretVersion)] = String(created.secret);
    this.#save();
    return String(created.id);
  }

  /**
   * The safety-net poll (§6.7): at most once a minute, from the persisted cursor, every page until `hasMore` is false;
   * the cursor is saved after each page. Answers the number of items read, or "skipped" inside the minute.
   */
  async pollFeed(): Promise<number | "skipped"> {
    const now = this.#now();
    if (this.state.lastPollAt !== null && now - this.state.lastPollAt < POLL_INTERVAL_MS) return "skipped";
    this.state.lastPollAt = now;
    let read = 0;
    for (;;) {
      const cursor = this.state.cursor ?? START_CURSOR;
      const page = await this.#json("GET", `/api/partner/v1/jobs?limit=100&cursor=${encodeURIComponent(cursor)}`);
      for (const item of page.resources as Array<{ resource: Job & { unassigned?: true } }>) {
        if (item.resource.unassigned) delete this.state.jobs[item.resource.id];
        else this.#remember(item.resource);
        read++;
      }
      this.state.cursor = String(page.nextCursor);
      this.#save();
      if (!page.hasMore) return read;
    }
  }

  async readJob(jobId: string): Promise<Job> {
    const answer = await this.#json("GET", `/api/partner/v1/jobs/${jobId}`);
    const job = answer.resource as Job;
    this.state.jobs[job.id] = job;
    this.#save();
    return job;
  }

  /** A status event (§2.3) on the job's last known version. */
  postStatus(jobId: string, status: string, extra: { note?: string; blockerCode?: string } = {}): Promise<Job> {
    return this.#startWrite("status", "POST", jobId, `/api/partner/v1/jobs/${jobId}/status-events`, (job) => ({
      status,
      occurredAt: new Date(this.#now()).toISOString(),
      ...extra,
      expectedVersion: job.version,
    }));
  }

  setSchedule(jobId: string, schedule: Record<string, unknown>): Promise<Job> {
    return this.#startWrite("schedule", "PUT", jobId, `/api/partner/v1/jobs/${jobId}/schedule`, (job) => ({
      ...schedule,
      expectedVersion: job.version,
    }));
  }

  assignTechnicians(jobId: string, membershipIds: string[]): Promise<Job> {
    const path = `/api/partner/v1/jobs/${jobId}/technician-assignments`;
    return this.#startWrite("assignments", "PUT", jobId, path, (job) => ({
      membershipIds,
      expectedVersion: job.version,
    }));
  }

  /** After a restart: sends every write that was persisted but not answered, with its own key. */
  async resume(): Promise<Job[]> {
    const done: Job[] = [];
    for (const [key, write] of Object.entries(this.state.pending)) done.push(await this.#send(key, write));
    return done;
  }

  /** A webhook endpoint: verified (§6.3.2), processed once (§6.6), 2xx only once applied (§6.4.1). */
  listen(port = 0, host = "127.0.0.1"): Promise<{ url: string; server: Server }> {
    const server = createServer(async (req, res) => {
      try {
        const answer = await this.#verifier.handle({ headers: req.headers, rawBody: await rawBody(req) }, (delivery) =>
          this.#apply(delivery.body),
        );
        res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
      } catch {
        res.writeHead(500).end();
      }
    });
    return new Promise((resolve) =>
      server.listen(port, host, () => {
        const { port: bound } = server.address() as AddressInfo;
        resolve({ url: `http://${host}:${bound}/installer-webhooks`, server });
      }),
    );
  }

  #apply(event: WebhookEnvelope): void {
    const job = event.data.job as Job | undefined;
    if (job) this.#remember(job);
    this.#save();
    this.#options.onEvent?.(event);
  }

  /** Keeps the newer of two views of a job: feed, events and answers arrive in any order. */
  #remember(job: Job): void {
    const known = this.state.jobs[job.id];
    if (!known || known.version <= job.version) this.state.jobs[job.id] = job;
  }

  async #startWrite(
    kind: PendingWrite["kind"],
    method: PendingWrite["method"],
    jobId: string,
    path: string,
    bodyFor: (job: Job) => PendingWrite["body"],
  ): Promise<Job> {
    const job = this.state.jobs[jobId] ?? (await this.readJob(jobId));
    const key = randomUUID();
    const write: PendingWrite = { kind, method, path, jobId, body: bodyFor(job) };
    // Persisted before it is sent: whatever happens next, a retry uses this key and cannot apply it twice.
    this.state.pending[key] = write;
    this.#save();
    return this.#send(key, write);
  }

  /** Sends a persisted write until it has an answer: 5xx, 429 and network errors again with the same key (§7). */
  async #send(key: string, write: PendingWrite, rereads = 0): Promise<Job> {
    for (let attempt = 1; ; attempt++) {
      let res: Response | undefined;
      try {
        res = await this.#fetch(`${this.#options.baseUrl}${write.path}`, {
          method: write.method,
          headers: { "x-api-key": this.#options.apiKey, "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify(write.body),
        });
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS) throw error;
      }
      // 5xx, 429 and "the key is still in flight" (an earlier attempt not yet answered): again, same key.
      const body = res ? ((await res.json().catch(() => ({}))) as Record<string, unknown>) : {};
      const retry = !res || res.status >= 500 || res.status === 429 || body.reason === "in_flight";
      if (res && !retry) {
        if (res.ok) return this.#settle(key, body.resource as Job);
        if (res.status === 409 && typeof body.currentVersion === "number" && rereads < 3) {
          return this.#decideAgain(key, write, rereads);
        }
        delete this.state.pending[key];
        this.#save();
        throw new InstallerApiError(res.status, body);
      }
      if (attempt >= MAX_ATTEMPTS) throw new InstallerApiError(res?.status ?? 0, {});
      await sleep(backoff(attempt, res?.headers.get("retry-after"), this.#options.retryBaseMs ?? 250));
    }
  }

  /**
   * §7 on a stale version: re-read the job and resubmit with the current version and a new key — unless the job
   * already is where the write wanted it (another of our requests, or a replay, got there first).
   */
  async #decideAgain(key: string, write: PendingWrite, rereads: number): Promise<Job> {
    delete this.state.pending[key];
    const job = await this.readJob(write.jobId);
    if (write.kind === "status" && job.status === write.body.status) {
      this.#save();
      return job;
    }
    const next: PendingWrite = { ...write, body: { ...write.body, expectedVersion: job.version } };
    const nextKey = randomUUID();
    this.state.pending[nextKey] = next;
    this.#save();
    return this.#send(nextKey, next, rereads + 1);
  }

  #settle(key: string, job: Job): Job {
    delete this.state.pending[key];
    this.#remember(job);
    this.#save();
    return job;
  }

  async #json(
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Record<string, unknown>> {
    const res = await this.#fetch(`${this.#options.baseUrl}${path}`, {
      method,
      headers: {
        ...(path.startsWith("/api/") ? { "x-api-key": this.#options.apiKey } : {}),
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new InstallerApiError(res.status, body);
    return body;
  }

  /** Written whole to a temporary file, then renamed over the old one: a crash leaves the old state or the new. */
  #save(): void {
    const temporary = `${this.#options.statePath}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.state));
    renameSync(temporary, this.#options.statePath);
  }
}

async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** retry-after when the answer gave one, else exponential backoff; with jitter either way (§7). */
function backoff(attempt: number, retryAfter: string | null | undefined, baseMs: number): number {
  const wait = retryAfter ? Number(retryAfter) * 1000 : baseMs * 2 ** (attempt - 1);
  return wait + Math.random() * baseMs;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const apiKey = process.env.INSTALLER_API_KEY;
  if (!apiKey) throw new Error("INSTALLER_API_KEY is required");
  const client = new InstallerClient({
    baseUrl: process.env.INSTALLER_BASE_URL ?? "http://127.0.0.1:8090",
    apiKey,
    statePath: process.env.INSTALLER_STATE ?? ".installer-client.json",
    onEvent: (event) =>
      process.stdout.write(`verified ${event.event} ${event.resource.id} v${event.resource.version}\n`),
  });
  const { url } = await client.listen(Number(process.env.INSTALLER_WEBHOOK_PORT ?? 9998));
  const owner = process.env.INSTALLER_OWNER;
  if (owner && Object.keys(client.state.secrets).length === 0) {
    const [companyId = "", password = ""] = owner.split(":");
    process.stdout.write(`subscribed ${await client.subscribe(url, { companyId, password })} → ${url}\n`);
  }
  await client.resume();
  const poll = async () => {
    const read = await client.pollFeed();
    if (read !== "skipped") {
      process.stdout.write(
        `feed: ${read} items, ${Object.keys(client.state.jobs).length} jobs, cursor ${client.state.cursor}\n`,
      );
    }
  };
  await poll();
  setInterval(
    () => void poll().catch((error: unknown) => process.stderr.write(`poll failed: ${String(error)}\n`)),
    POLL_INTERVAL_MS,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
