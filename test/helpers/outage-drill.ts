import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { vi } from "vitest";
import type { GatewayContext } from "../../src/gateway/context.js";
import { createGateway, type Gateway } from "../../src/gateway/create-gateway.js";
import { createForwardingWorker, type ForwardingWorker } from "../../src/gateway/create-worker.js";
import { createUpstreamCredential } from "../../src/gateway/credentials/upstream-credentials.js";
import type { ForwardingLimits } from "../../src/gateway/forwarding/limits.js";
import type { SendRetryPolicy } from "../../src/gateway/forwarding/send-retry.js";
import { createVendorKey } from "../../src/gateway/keys/vendor-keys.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { loopbackWebhookPorts } from "../../src/gateway/webhooks/loopback-ports.js";
import { createSubscription } from "../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { listen, type RunningServer } from "../../src/http/server.js";
import { type FaultSpec, type FaultSpecInput, faultSpecSchema } from "../../src/sandbox/faults/fault-spec.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/index.js";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.js";
import { TEST_PASSWORD_COST } from "./gateway.js";
import { captureLog } from "./log-capture.js";
import { dropPrefix, SHARED_REDIS_URL, uniquePrefix } from "./redis.js";

/**
 * An outage drill (docs/operations.md): the sandbox as the platform (its referee counts what it admitted), a gateway
 * of one process (embedded driver) or of several (BullMQ: API processes and workers, each with connections of its
 * own), every one reaching PostgreSQL through a fault proxy of its own and Redis through one shared proxy, and a
 * webhook receiver counting what it is sent. A test cuts the proxies at the point it is about, restores them, and
 * asks `verify()` whether everything accepted was forwarded once, every webhook owed was delivered once, and how long
 * after the recovery the last submission due went.
 *
 * The processes of a BullMQ drill run in the test's process, each with its own pool, Redis connections, dispatcher
 * candidates and stores: what they share is what separate machines share (the database, Redis, the network).
 */

export interface DrillOptions {
  /** The test's database (usePostgresDatabase), reached directly by the drill's own checks. */
  databaseUrl: string;
  driver: "embedded" | "bullmq";
  /** BullMQ: API processes (each serves intake and is a webhook dispatcher candidate) and worker processes. */
  apis?: number;
  workers?: number;
  /** The platform acts on a request at once and answers this much later: sends are in flight when the cut comes. */
  answerLatencyMs?: number;
  /** The vendor's webhook endpoint answers this much later: deliveries are in flight when the cut comes. */
  receiverLatencyMs?: number;
  retry?: Partial<SendRetryPolicy>;
  /** D-334's grace (LEASE_GRACE_MS by default). */
  leaseGraceMs?: number;
}

/** The platform's limits and the gateway's (the same: §8), roomy enough that the limiter never sets the pace. */
const WINDOW_MS = 1_000;
const LIMITS = { perKey: 40, perCompany: 80, egress: 160 };

interface Process {
  name: string;
  proxy: FaultProxy;
  ctx: GatewayContext;
  gateway?: Gateway;
  worker?: ForwardingWorker;
  server?: RunningServer;
}

export interface DrillCompany {
  name: string;
  /** The lead source's vendor key (leads; submission.forwarded webhooks). */
  leads: string;
  /** The booking vendor's vendor key (leads and appointments chained on them; appointment.booked webhooks). */
  bookings: string;
}

/** What the receiver was sent: per event id, how many times. */
interface Received {
  event: string;
  times: number;
}

export async function startDrill(options: DrillOptions) {
  const { log, lines } = captureLog();
  const sandbox: RunningSandbox = await startSandbox({
    host: "127.0.0.1",
    port: 0,
    log: log.child({ component: "sandbox" }),
    limits: {
      key: { limit: LIMITS.perKey, windowMs: WINDOW_MS },
      owner: { limit: LIMITS.perCompany, windowMs: WINDOW_MS },
      ip: { limit: LIMITS.egress, windowMs: WINDOW_MS },
    },
  });
  if (options.answerLatencyMs) {
    sandbox.admin.faults.add(faultSpecSchema.parse({ route: "*", answerLatencyMs: options.answerLatencyMs }));
  }
  const receiver = await startReceiver(options.receiverLatencyMs ?? 0);
  const direct = new pg.Pool({ connectionString: options.databaseUrl, max: 3 });
  direct.on("error", () => undefined);
  const target = new URL(options.databaseUrl);
  const pgTarget = { host: target.hostname, port: Number(target.port || 5432) };
  const redisTarget = new URL(SHARED_REDIS_URL);
  const redisProxy =
    options.driver === "bullmq"
      ? await startFaultProxy({ target: { host: redisTarget.hostname, port: Number(redisTarget.port || 6379) } })
      : undefined;
  const prefix = uniquePrefix("drill");
  const limits: ForwardingLimits = {
    perCredential: { limit: LIMITS.perKey, windowMs: WINDOW_MS },
    perCompany: { limit: LIMITS.perCompany, windowMs: WINDOW_MS },
    egress: { limit: LIMITS.egress, windowMs: WINDOW_MS },
    marginMs: 1,
  };
  const masterKey = randomBytes(32).toString("hex");
  const forwarding = {
    upstreamUrl: sandbox.url,
    limits,
    retry: { baseMs: 300, capMs: 1_000, maxAttempts: 12, horizonMs: 10 * 60_000, ...options.retry },
    timeoutMs: 3_000 + (options.answerLatencyMs ?? 0),
  };
  const redis = redisProxy ? { url: redisProxy.url(SHARED_REDIS_URL), prefix, reconcileMs: 1_000 } : undefined;
  const common = {
    databasePath: "unused.db",
    // A statement unanswered for 8 s fails (a partition); nothing in a drill waits that long for a lock.
    postgres: { poolMax: 4, statementTimeoutMs: 3_000 },
    masterKey,
    settings: {
      intakeLimit: { ratePerSecond: 100_000, burst: 100_000 },
      webhookLoopbackPorts: loopbackWebhookPorts("127.0.0.1", []),
      passwordCost: TEST_PASSWORD_COST,
    },
    ...(options.leaseGraceMs === undefined ? {} : { outages: { leaseGraceMs: options.leaseGraceMs } }),
  };
  const webhooks = { retrySchedule: [200, 400, 800, 1_600], jitter: 0, pollMs: 1_000 };

  const processes: Process[] = [];
  const open = async (name: string) => {
    const proxy = await startFaultProxy({ target: pgTarget });
    return { proxy, databaseUrl: proxy.url(options.databaseUrl), log: log.child({ process: name }) };
  };
  if (options.driver === "embedded") {
    const { proxy, databaseUrl, log: own } = await open("gateway");
    const gateway = await createGateway({ ...common, databaseUrl, log: own, forwarding, webhooks });
    const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
    processes.push({ name: "gateway", proxy, ctx: gateway.ctx, gateway, server });
  } else {
    if (!redis) throw new Error("a BullMQ drill needs its Redis proxy");
    for (let i = 0; i < (options.apis ?? 2); i++) {
      const name = `api${i}`;
      const { proxy, databaseUrl, log: own } = await open(name);
      const gateway = await createGateway({
        ...common,
        databaseUrl,
        log: own,
        forwarding: { ...forwarding, redis: { ...redis, api: true, worker: false } },
        webhooks,
      });
      const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
      processes.push({ name, proxy, ctx: gateway.ctx, gateway, server });
    }
    for (let i = 0; i < (options.workers ?? 2); i++) {
      const name = `worker${i}`;
      const { proxy, databaseUrl, log: own } = await open(name);
      const worker = await createForwardingWorker({
        ...common,
        databaseUrl,
        log: own,
        forwarding: { ...forwarding, redis },
      });
      await worker.started;
      processes.push({ name, proxy, ctx: worker.ctx, worker });
    }
    await waitFor(() => processes.some((p) => p.worker?.driver.leading), 15_000, "a forwarding dispatcher elected");
  }
  const apis = processes.filter((p) => p.server);
  const first = apis[0];
  if (!first?.gateway) throw new Error("a drill has an API process");
  const ctx = first.gateway.ctx;
  for (const api of apis) {
    if (api.gateway && api.server) api.gateway.ctx.settings.publicUrl = api.server.url;
  }

  const accepted = new Map<string, { kind: "lead" | "appointment"; company: string }>();
  const refusals: { status: number; retryAfter: string | null; body: string }[] = [];
  let turn = 0;
  let address = 1_000;
  let recoveredAt: number | undefined;
  let dueAtRecovery = new Map<string, number>();

  const sql = async <T>(text: string, values: unknown[] = []): Promise<T[]> =>
    (await direct.query(text, values)).rows as T[];

  const drill = {
    sandbox,
    receiver,
    processes,
    /** Every log line of every process (JSON objects). */
    lines,
    /** Intake's refusals seen by the vendors (503 during an outage), with their retry-after. */
    refusals,
    /** The PostgreSQL proxies of every process, or of the named ones. */
    pgProxies(names?: string[]): FaultProxy[] {
      return processes.filter((p) => !names || names.includes(p.name)).map((p) => p.proxy);
    },
    redisProxy,
    /** The database's outage: every process's connections cut for `ms`, then restored (recovery time recorded). */
    async cutDatabase(ms: number, names?: string[]): Promise<void> {
      const proxies = drill.pgProxies(names);
      await Promise.all(proxies.map((p) => p.cut()));
      await outageLasting(ms);
      await drill.restoreDatabase(names);
    },
    async restoreDatabase(names?: string[]): Promise<void> {
      await Promise.all(drill.pgProxies(names).map((p) => p.restore()));
      await drill.recovered();
    },
    /** Records the recovery: the time, and when each unfinished submission is due from then (its retry delay). */
    async recovered(at = Date.now()): Promise<void> {
      recoveredAt = at;
      const rows = await sql<{ id: string; next_attempt_at: number | null }>(
        "select id, next_attempt_at from submissions where status not in ('forwarded', 'failed')",
      );
      dueAtRecovery = new Map(rows.map((r) => [r.id, Math.max(at, Number(r.next_attempt_at ?? 0))]));
    },
    /** A company on both sides: its general key at the platform, its two vendor keys, their subscriptions. */
    async addCompany(name: string): Promise<DrillCompany> {
      const upstream = sandbox.admin.createCompany({
        name,
        kind: "company",
        people: [{ name: `${name} rep`, email: `rep@${name.toLowerCase().replaceAll(" ", "-")}.test` }],
        contractors: [],
      });
      const general = sandbox.admin.createKey({
        companyId: upstream.id,
        kind: "general",
        personId: upstream.people[0]?.id,
      });
      const company = await createCompany({ ctx, input: { name } });
      const credential = await createUpstreamCredential({
        ctx,
        companyId: company.id,
        input: { name: "general", value: general.key },
      });
      const key = async (partnerType: "lead_source" | "booking_vendor", events: string[]) => {
        const made = await createVendorKey({
          ctx,
          companyId: company.id,
          input: {
            name: partnerType,
            partnerType,
            scopes: partnerType === "lead_source" ? ["leads:write"] : ["leads:write", "appointments:write"],
            credentialId: credential.id,
          },
        });
        await createSubscription({
          ctx,
          companyId: company.id,
          input: { vendorKeyId: made.id, url: `${receiver.url}/hooks/${made.id}`, events },
        });
        return made.key;
      };
      return {
        name,
        leads: await key("lead_source", ["submission.forwarded", "submission.failed"]),
        bookings: await key("booking_vendor", ["appointment.booked", "submission.failed"]),
      };
    },
    /**
     * A vendor's POST: through the API processes in turn, again after a 503 (waiting what `retry-after` asks, at most
     * a quarter second here) or a broken connection, with the same idempotency key — so a retry is replayed, never
     * accepted twice. Resolves with the submission id once accepted.
     */
    async post(path: string, key: string, body: object, idempotencyKey: string): Promise<string> {
      for (let tries = 0; tries < 2_000; tries++) {
        const api = apis[turn++ % apis.length];
        if (!api?.server) continue;
        let res: Response;
        try {
          res = await fetch(`${api.server.url}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": key, "idempotency-key": idempotencyKey },
            body: JSON.stringify(body),
          });
        } catch {
          await vendorBackoff(100);
          continue;
        }
        if (res.status === 503) {
          const retryAfter = res.headers.get("retry-after");
          refusals.push({ status: res.status, retryAfter, body: await res.text() });
          await vendorBackoff(Math.min(Number(retryAfter ?? 1) * 1_000, 250));
          continue;
        }
        if (res.status !== 202 && res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        const { submissionId } = (await res.json()) as { submissionId: string };
        return submissionId;
      }
      throw new Error(`${path}: never accepted`);
    },
    /** A lead of the company's lead source. */
    async postLead(company: DrillCompany, n: string): Promise<string> {
      const id = await drill.post("/api/inbound/leads", company.leads, leadBody(n, address++), `lead-${n}`);
      accepted.set(id, { kind: "lead", company: company.name });
      return id;
    },
    /** A booking: the booking vendor's lead, then its appointment chained on the lead's submission id. */
    async postBooking(company: DrillCompany, n: string): Promise<void> {
      const leadId = await drill.post("/api/inbound/leads", company.bookings, leadBody(n, address++), `booked-${n}`);
      accepted.set(leadId, { kind: "lead", company: company.name });
      const appointment = {
        leadId,
        startsAt: "2026-12-01T15:00:00Z",
        endsAt: "2026-12-01T16:00:00Z",
        idempotencyKey: `appointment-${n}`,
      };
      const id = await drill.post("/api/inbound/appointments", company.bookings, appointment, `appointment-${n}`);
      accepted.set(id, { kind: "appointment", company: company.name });
    },
    /** Rows of the gateway's database by status (read directly, never through a proxy). */
    async count(where: string): Promise<number> {
      return Number((await sql<{ n: string }>(`select count(*) as n from submissions where ${where}`))[0]?.n ?? 0);
    },
    sql,
    /** Waits until every accepted submission is forwarded and every webhook delivery delivered. */
    async drained(timeoutMs: number): Promise<void> {
      await waitFor(
        async () => {
          if (await drill.isDrained()) return true;
          return false;
        },
        timeoutMs,
        "every submission forwarded and every webhook delivered",
      ).catch(async (error: unknown) => {
        throw new Error(`${(error as Error).message}\n${JSON.stringify(await drill.state(), null, 1)}`, {
          cause: error,
        });
      });
    },
    /** What a drain left so far, for a failure's message: statuses, leaders, the processes' last leadership lines. */
    async state() {
      return {
        submissions: await sql("select status, count(*) as n from submissions group by status"),
        deliveries: await sql("select status, count(*) as n from webhook_deliveries group by status"),
        accepted: accepted.size,
        leaders: processes
          .filter((p) => p.worker?.driver.leading || p.gateway?.webhooks.dispatcher)
          .map(
            (p) =>
              `${p.name}${p.worker?.driver.leading ? " forwarding" : ""}${p.gateway?.webhooks.dispatcher ? " webhooks" : ""}`,
          ),
        outages: processes.map((p) => ({ process: p.name, waiting: p.ctx.outages.current.map((o) => o.loop) })),
        lines: lines
          .filter((l) => /took over|stepped down|claim|store (un)?available/.test(String(l.msg)))
          .slice(-30)
          .map((l) => `${String(l.time ?? "")} ${String(l.process ?? "")} ${String(l.msg)}`),
      };
    },
    async isDrained(): Promise<boolean> {
      return (
        (await drill.count("status in ('forwarded', 'failed')")) >= accepted.size &&
        Number(
          (await sql<{ n: string }>("select count(*) as n from webhook_deliveries where status <> 'delivered'"))[0]?.n,
        ) === 0 &&
        Number((await sql<{ n: string }>("select count(*) as n from webhook_deliveries"))[0]?.n) > 0
      );
    },
    /** What the rules say after a drill (see verify's fields). */
    async verify(): Promise<DrillReport> {
      const rows = (
        await sql<{
          id: string;
          kind: "lead" | "appointment";
          status: string;
          idempotency_key: string | null;
          upstream_idempotency_key: string | null;
          forwarded_at: string | null;
          result: string | { leadId?: string; appointmentId?: string } | null;
          attempts: number;
        }>(
          "select id, kind, status, idempotency_key, upstream_idempotency_key, forwarded_at, result, attempts from submissions",
        )
      ).map((r) => ({
        ...r,
        result: (typeof r.result === "string" ? JSON.parse(r.result) : r.result) as {
          leadId?: string;
          appointmentId?: string;
        } | null,
      }));
      const notForwarded = rows.filter((r) => r.status !== "forwarded").map((r) => `${r.id} ${r.status}`);
      const unknown = rows.filter((r) => !accepted.has(r.id)).map((r) => r.id);
      const missing = [...accepted.keys()].filter((id) => !rows.some((r) => r.id === id));
      // The platform's own records: each lead received once (a lead sent twice is merged into itself, its history
      // two submissions long), each appointment booked once and never replayed (a second send is a replay).
      const leadsReceivedTwice = rows
        .filter((r) => r.kind === "lead" && r.result?.leadId)
        .filter((r) => sandbox.admin.lead(r.result?.leadId ?? "").history.length !== 1)
        .map((r) => r.id);
      const appointmentIds = new Set(rows.filter((r) => r.kind === "appointment").map((r) => r.result?.appointmentId));
      const booked = sandbox.admin.stats().appointments.filter((a) => appointmentIds.has(a.appointmentId));
      const replayed = booked.filter((a) => a.replays > 0).map((a) => a.appointmentId);
      // Webhooks: every delivery delivered, each event received by the vendor once.
      const deliveries = await sql<{ event_id: string; status: string }>(
        "select event_id, status from webhook_deliveries",
      );
      const undelivered = deliveries.filter((d) => d.status !== "delivered").map((d) => d.event_id);
      const notReceived = deliveries.filter((d) => !receiver.received.has(d.event_id)).map((d) => d.event_id);
      const receivedTwice = [...receiver.received].filter(([, r]) => r.times > 1).map(([id]) => id);
      // The last submission due after the recovery: forwarded how long after its due time (the recovery, or its own
      // retry's time after it)?
      let lastDueLagMs: number | undefined;
      let lastDue: string | undefined;
      if (recoveredAt !== undefined) {
        for (const row of rows) {
          const due = dueAtRecovery.get(row.id);
          if (due === undefined || !row.forwarded_at) continue;
          const lag = Date.parse(row.forwarded_at) - due;
          if (lag > (lastDueLagMs ?? Number.NEGATIVE_INFINITY)) {
            lastDueLagMs = lag;
            lastDue = row.id;
          }
        }
      }
      // The last one's attempts, relative to the recovery: what kept it (its retries, a claim's lease).
      const lastDueAttempts = lastDue
        ? (
            await sql<{ started_at: string; status: number | null }>(
              "select started_at, status from submission_attempts where submission_id = $1 order by started_at",
              [lastDue],
            )
          ).map((a) => `${Date.parse(a.started_at) - (recoveredAt ?? 0)} ms: ${a.status ?? "no answer"}`)
        : [];
      return {
        accepted: accepted.size,
        forwarded: rows.filter((r) => r.status === "forwarded").length,
        notForwarded,
        unknown,
        missing,
        leadsReceivedTwice,
        appointmentsBooked: booked.length,
        appointments: appointmentIds.size,
        replayed,
        deliveries: deliveries.length,
        undelivered,
        notReceived,
        receivedTwice,
        dueAfterRecovery: dueAtRecovery.size,
        lastDueLagMs,
        lastDueAttempts,
      };
    },
    /** The outage's log lines ("store unavailable" / "available again"), per process and loop. */
    outageLines(): { process: string; loop: string; msg: string }[] {
      return lines
        .filter((l) => typeof l.loop === "string" && /store (un)?available/.test(String(l.msg)))
        .map((l) => ({ process: String(l.process ?? "?"), loop: String(l.loop), msg: String(l.msg) }));
    },
    /**
     * `fn` runs inside the next outcome transaction of a send (a credential's scope) of every process, just before its
     * COMMIT — once in all. Resolves once it has run.
     */
    duringNextOutcomeCommit(fn: () => Promise<void>): Promise<void> {
      let fired = false;
      return new Promise<void>((resolve) => {
        for (const process of processes) {
          const real = process.ctx.transaction;
          process.ctx.transaction = ((work, mode, scope) =>
            real(
              async (tx) => {
                const result = await work(tx);
                if (scope?.credentialId !== undefined && !fired) {
                  fired = true;
                  await fn();
                  resolve();
                }
                return result;
              },
              mode,
              scope,
            )) as GatewayContext["transaction"];
        }
      });
    },
    async close(): Promise<void> {
      for (const p of processes) await p.proxy.restore().catch(() => undefined);
      await redisProxy?.restore().catch(() => undefined);
      for (const p of processes) await p.server?.close();
      for (const p of processes) await p.worker?.close(1_000);
      for (const p of processes) await p.gateway?.close(1_000);
      for (const p of processes) await p.proxy.close();
      await redisProxy?.close();
      await sandbox.close();
      await receiver.close();
      await direct.end();
      if (redis) await dropPrefix(SHARED_REDIS_URL, prefix);
    },
  };
  return drill;
}

export type Drill = Awaited<ReturnType<typeof startDrill>>;

export interface DrillReport {
  accepted: number;
  forwarded: number;
  /** Accepted and not forwarded: none may be left. */
  notForwarded: string[];
  /** Rows no vendor was told of (a 202 the vendor never saw): none. */
  unknown: string[];
  /** Accepted (a 202 seen) and not in the database: none. */
  missing: string[];
  /** Leads the platform received more than once: none. */
  leadsReceivedTwice: string[];
  appointmentsBooked: number;
  appointments: number;
  /** Appointments the platform was sent again (a replay of their idempotency key): none. */
  replayed: string[];
  deliveries: number;
  undelivered: string[];
  notReceived: string[];
  /** Events the vendor received more than once: none. */
  receivedTwice: string[];
  /** Submissions not finished when the outage ended. */
  dueAfterRecovery: number;
  /** The longest time from a submission's due time after the recovery to its forwarding. */
  lastDueLagMs: number | undefined;
  /** That submission's attempts: when each began after the recovery (ms), and the platform's answer. */
  lastDueAttempts: string[];
}

/** The rules every drill ends on, as one object a test compares (a failure shows every broken rule at once). */
export function brokenRules(report: DrillReport): Record<string, unknown> {
  return {
    notForwarded: report.notForwarded,
    unknown: report.unknown,
    missing: report.missing,
    leadsReceivedTwice: report.leadsReceivedTwice,
    replayed: report.replayed,
    appointmentsNotBookedOnce: report.appointmentsBooked === report.appointments ? [] : [report],
    undelivered: report.undelivered,
    notReceived: report.notReceived,
    receivedTwice: report.receivedTwice,
  };
}

export const NO_BROKEN_RULE = {
  notForwarded: [],
  unknown: [],
  missing: [],
  leadsReceivedTwice: [],
  replayed: [],
  appointmentsNotBookedOnce: [],
  undelivered: [],
  notReceived: [],
  receivedTwice: [],
};

function leadBody(n: string, address: number) {
  return {
    fullName: `Customer ${n}`,
    email: `${n}@drill.test`,
    phone: "+1 555 010 0000",
    // A new address each time: the platform creates a lead rather than merging (a merge means received twice).
    address: `${address} Drill Road, Springfield, IL 62701`,
  };
}

/** A fault of the sandbox (its admin API's shape, defaults filled in). */
export function sandboxFault(input: FaultSpecInput): FaultSpec {
  return faultSpecSchema.parse(input);
}

/** The outage's length is the fault itself: there is no state to wait for. */
export function outageLasting(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A vendor waiting before it posts again, as `retry-after` asks: the vendor's own pace, not a test's wait. */
function vendorBackoff(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor(probe: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  try {
    await vi.waitUntil(probe, { timeout: timeoutMs, interval: 100 });
  } catch (error) {
    throw new Error(`timed out waiting for ${what}`, { cause: error });
  }
}

/** The vendor's webhook endpoint: answers 200 (after `latencyMs`), counting every event by its id. */
async function startReceiver(latencyMs: number) {
  const received = new Map<string, Received>();
  let inFlight = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      inFlight++;
      setTimeout(() => {
        inFlight--;
        const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: string; event?: string };
        const id = envelope.id ?? "?";
        const seen = received.get(id);
        if (seen) seen.times++;
        else received.set(id, { event: envelope.event ?? "?", times: 1 });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    /** Requests it holds now (their answer not given yet). */
    inFlight: () => inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
