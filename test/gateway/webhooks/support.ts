import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { vi } from "vitest";
import { newDeliveryId, signWebhook, unixSeconds } from "../../../src/contract/signing.js";
import { buildEnvelope, newEventId } from "../../../src/contract/webhook-envelope.js";
import type { submissions } from "../../../src/db/schema/index.js";
import type { Gateway } from "../../../src/gateway/create-gateway.js";
import type { StorageHandles } from "../../../src/gateway/storage/open-storage.js";
import { submissionRow } from "../../../src/gateway/storage/submissions/index.js";
import type { WebhookDeliveryRow, WebhookDeliveryStatus } from "../../../src/gateway/storage/webhooks/index.js";
import { onSubmissionSettled, type WebhookOptions } from "../../../src/gateway/webhooks/index.js";
import { newId } from "../../../src/ids.js";
import {
  json,
  OWNER_PASSWORD,
  postJson,
  seedCompany,
  startTestGateway,
  type TestGateway,
} from "../../helpers/gateway.js";

/** Fast schedules so retries, dead letters and disabling happen within a test. */
export const FAST: WebhookOptions = { retrySchedule: [100, 200], jitter: 0, pollMs: 200 };

export type WebhookGateway = TestGateway;

/** A real gateway (in-memory or file database) on 127.0.0.1, port 0, with webhook options. */
export function startGateway(
  options: {
    webhooks?: WebhookOptions;
    mode?: "sandbox" | "live";
    databasePath?: string;
    masterKey?: string;
    now?: () => Date;
  } = {},
): Promise<WebhookGateway> {
  const { mode, ...rest } = options;
  return startTestGateway(
    { mode: mode ?? "sandbox" },
    { ...rest, engine: { poolSize: 1 }, webhooks: options.webhooks ?? FAST },
  );
}

export type Company = Awaited<ReturnType<typeof seedCompany>>;

/** An owner's bearer token (sign in, then a token: the owner API's own flow). */
export async function bearer(url: string, email: string): Promise<string> {
  const signIn = await postJson(`${url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = await json(signIn);
  const res = await postJson(`${url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": String(csrfToken) });
  return String((await json(res)).token);
}

export function ownerApi(url: string, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/owner/v1/webhooks${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
}

export type OwnerApi = ReturnType<typeof ownerApi>;

/** A delivery as the owner's log shows it (§6.4). */
export interface LoggedDelivery {
  id: string;
  eventId: string;
  event: string;
  /** The platform event it relays, if it relays one. */
  sourceEventId: string | null;
  status: "pending" | "delivering" | "delivered" | "failed";
  attempts: number;
  lastError: string | null;
}

/** A subscription's deliveries as the owner's log shows them, newest first (`status`: that status only). */
export async function deliveryLog(api: OwnerApi, subscriptionId: string, status?: string): Promise<LoggedDelivery[]> {
  const res = await api("GET", `/subscriptions/${subscriptionId}/deliveries${status ? `?status=${status}` : ""}`);
  if (res.status !== 200) throw new Error(`delivery log of ${subscriptionId}: ${res.status}`);
  return res.body.deliveries as LoggedDelivery[];
}

/**
 * A platform event as the owner's list shows it. The receiver stores it and its fan-out to vendors in one transaction
 * before answering 2xx (§6.4.1): once listed it is processed, and `fannedOut` vendor deliveries exist for it.
 */
export interface StoredPlatformEvent {
  id: string;
  event: string;
  resourceId: string;
  resourceVersion: number;
  fannedOut: number;
}

/** The platform events the gateway stored for the owner's company, newest first. */
export async function platformEvents(api: OwnerApi): Promise<StoredPlatformEvent[]> {
  const res = await api("GET", "/platform/events?limit=200");
  if (res.status !== 200) throw new Error(`platform events: ${res.status}`);
  return res.body.events as StoredPlatformEvent[];
}

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  at: number;
}

export type Answer = (req: Received, res: ServerResponse) => void;

/** A vendor's endpoint on 127.0.0.1: records every request; answers 200 unless told otherwise. */
export async function startReceiver(answer: Answer = (_r, res) => res.writeHead(200).end("ok")) {
  const received: Received[] = [];
  let respond = answer;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = { headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() };
      received.push(entry);
      respond(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    bodies: () => received.map((r) => JSON.parse(r.raw.toString("utf8")) as Record<string, unknown>),
    answer(next: Answer) {
      respond = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Resolves once `check` holds (a state, polled); fails the test after `timeoutMs` naming `what` it waited for. */
export async function waitFor(check: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  try {
    await vi.waitUntil(check, { timeout: timeoutMs, interval: 10 });
  } catch (error) {
    throw new Error(`timed out waiting for ${what}`, { cause: error });
  }
}

/** A platform envelope (§6.1) as the platform would send it. */
export function platformEnvelope(input: {
  event?: string;
  id?: string;
  resource?: { type: string; id: string; version: number };
  data?: Record<string, unknown>;
}) {
  return buildEnvelope({
    id: input.id ?? newEventId(),
    event: input.event ?? "appointment.booked",
    occurredAt: new Date().toISOString(),
    resource: input.resource ?? { type: "appointment", id: "apt_1", version: 1 },
    data: input.data ?? {},
  });
}

/** POSTs a signed platform delivery to the company's receiver; the body bytes are sent exactly as given. */
export async function deliverToGateway(
  url: string,
  companyId: string,
  body: string,
  options: { secret: string; version?: number; timestamp?: number; deliveryId?: string; event?: string },
) {
  const headers = signWebhook({
    secret: options.secret,
    secretVersion: options.version ?? 1,
    event: options.event ?? "appointment.booked",
    deliveryId: options.deliveryId ?? newDeliveryId(),
    timestamp: options.timestamp ?? unixSeconds(),
    rawBody: body,
  });
  const res = await fetch(`${url}/webhooks/platform/${companyId}`, { method: "POST", headers: { ...headers }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers };
}

type SubmissionRow = typeof submissions.$inferSelect;

/** A settled submission row as forwarding leaves it (what `onSubmissionSettled` receives). */
export function settledSubmission(
  companyId: string,
  vendorKeyId: string,
  fields: Partial<SubmissionRow> & Pick<SubmissionRow, "kind" | "status">,
): SubmissionRow {
  const now = new Date().toISOString();
  return submissionRow({
    id: newId("sub"),
    companyId,
    vendorKeyId,
    credentialId: "cred",
    payloadDigest: "digest",
    attempts: 1,
    forwardedAt: now,
    upstreamStatus: 201,
    createdAt: now,
    ...fields,
  });
}

export { json, postJson, seedCompany };

/** Stores the row (as forwarding would have) and calls the hook the way forwarding does, after the commit. */
export async function settle(gateway: Gateway, row: SubmissionRow): Promise<SubmissionRow> {
  await gateway.ctx.submissions.insert(row);
  await onSubmissionSettled(gateway.ctx, row);
  return row;
}

const STATUSES: readonly WebhookDeliveryStatus[] = ["pending", "delivering", "delivered", "failed"];

/**
 * Every delivery of a subscription whatever its status, newest first, read through the webhooks store (the owner's
 * log, one status at a time), so that a suite runs on either store (D-259). The reads of the statuses are not one
 * snapshot: a delivery the dispatcher moves between two of them could be seen twice or not at all, so the rows are
 * read again until two reads in a row agree.
 */
export async function deliveriesOf(
  gateway: Pick<Gateway, "ctx">,
  subscriptionId: string,
): Promise<WebhookDeliveryRow[]> {
  const { deliveries } = gateway.ctx.webhooks;
  const read = async () => {
    const rows: WebhookDeliveryRow[] = [];
    for (const status of STATUSES) rows.push(...(await deliveries.pageOf(subscriptionId, status, undefined, 10_000)));
    return rows.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  };
  const shape = (rows: WebhookDeliveryRow[]) => JSON.stringify(rows.map((r) => [r.id, r.status, r.attempts]));
  let last = await read();
  try {
    return await vi.waitUntil(
      async () => {
        const next = await read();
        const still = shape(next) === shape(last) && new Set(next.map((r) => r.id)).size === next.length;
        last = next;
        return still && next;
      },
      { timeout: 5_000, interval: 10 },
    );
  } catch (error) {
    throw new Error(`the deliveries of ${subscriptionId} never held still`, { cause: error });
  }
}

type Opened = { database: StorageHandles };

/**
 * What a test asks of the database itself rather than of a store (a table's columns, a table's whole row count):
 * SQLite's handle or PostgreSQL's pool, whichever the gateway opened. `sql` uses `$1…` placeholders; on SQLite they
 * are bound in order.
 */
async function query<Row>(opened: Opened, sql: string, params: readonly unknown[] = []): Promise<Row[]> {
  const { database } = opened;
  if (database.dialect === "postgres") return (await database.database.pool.query(sql, [...params])).rows as Row[];
  return database.database.sqlite.prepare(sql.replace(/\$\d+/g, "?")).all(...params) as Row[];
}

/** The number of rows of a table, all companies together. */
export async function rowCount(opened: Opened, table: string): Promise<number> {
  const [row] = await query<{ n: number | string }>(opened, `SELECT count(*) AS n FROM ${table}`);
  return Number(row?.n);
}

/** The columns of a table, as the database has them. */
export async function columnsOf(opened: Opened, table: string): Promise<string[]> {
  if (opened.database.dialect === "postgres") {
    const rows = await query<{ name: string }>(
      opened,
      "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
      [table],
    );
    return rows.map((r) => r.name);
  }
  return (await query<{ name: string }>(opened, `PRAGMA table_info(${table})`)).map((r) => r.name);
}

/**
 * A database fault for one statement, as a full disk or a lost lock would make it: an insert into `table` fails
 * (`once`: only the first, on whichever connection makes it). A trigger on either store; on SQLite it calls a
 * function of the test's, so every connection that may insert gets the function (`also`: a worker's).
 */
export async function failInserts(
  opened: Opened,
  table: string,
  options: { once: boolean; also?: readonly Opened[] },
): Promise<{ fired: () => Promise<boolean>; remove: () => Promise<void> }> {
  const name = `test_fault_${table}`;
  const { database } = opened;
  if (database.dialect === "postgres") {
    const { pool } = database.database;
    await pool.query(`CREATE SEQUENCE ${name}_seq`);
    await pool.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- nextval is not rolled back with the failed statement: it counts every insert tried.
        IF nextval('${name}_seq') ${options.once ? "= 1" : ">= 1"} THEN
          RAISE EXCEPTION 'injected fault: disk I/O error';
        END IF;
        RETURN NEW;
      END $$`);
    await pool.query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    return {
      fired: async () => (await pool.query(`SELECT is_called FROM ${name}_seq`)).rows[0]?.is_called === true,
      remove: async () => {
        await pool.query(`DROP TRIGGER ${name} ON ${table}`);
        await pool.query(`DROP FUNCTION ${name}()`);
        await pool.query(`DROP SEQUENCE ${name}_seq`);
      },
    };
  }
  let tried = 0;
  for (const each of [opened, ...(options.also ?? [])]) {
    if (each.database.dialect !== "sqlite") throw new Error("failInserts: every connection on the same store");
    each.database.database.sqlite.function(name, () => {
      tried++;
      return options.once && tried > 1 ? 0 : 1;
    });
  }
  const { sqlite } = database.database;
  sqlite.exec(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table}
    WHEN ${name}() = 1 BEGIN SELECT RAISE(ABORT, 'injected fault: disk I/O error'); END`);
  return {
    fired: async () => tried > 0,
    remove: async () => {
      sqlite.exec(`DROP TRIGGER ${name}`);
    },
  };
}
