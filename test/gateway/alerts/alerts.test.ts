import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { createOwner } from "../../../src/gateway/tenants/create-owner.js";
import { createSubscription } from "../../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { type FaultSpecInput, faultSpecSchema } from "../../../src/sandbox/faults/fault-spec.js";
import { lead, type Rig, type RigCompany, startRig } from "../../helpers/forwarding.js";
import { json, OWNER_PASSWORD, postJson } from "../../helpers/gateway.js";
import { seedSubmissions } from "../../helpers/seed-submissions.js";
import { type Posted, startEndpoints, startSmtpServer } from "./support.js";

/**
 * Alerts (docs/alerts.md; D-340…D-349): each condition brought about by real traffic or the sandbox's own refusal
 * opens exactly one alert, reaches every channel its severity is routed to — the e-mail read back from a real SMTP
 * server, the operational webhook verified by its §6.3 signature, Slack's and Teams' payloads — and resolves after
 * recovery with a "resolved" notice. The clock of the gateway's context can be moved forward (a vendor gone quiet, a
 * window that passes); the evaluator runs every 100 ms.
 */
const PRESETS = new URL("../../../presets", import.meta.url).pathname;
const SECRET = "ops-endpoint-signing-secret-0123456789";
const ANGI_KEY = "angi-alerts-test-key-0001";
const BOOKING = JSON.parse(
  (JSON.parse(readFileSync(`${PRESETS}/angi/samples/02-instant-booking.json`, "utf8")) as { request: { body: string } })
    .request.body,
) as Record<string, unknown>;

let rig: Rig;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let endpoints: Awaited<ReturnType<typeof startEndpoints>>;
let offsetMs = 0;
const advance = (ms: number) => {
  offsetMs += ms;
};

interface Tenant {
  company: RigCompany;
  token: string;
  tag: string;
}

interface AlertAnswer {
  id: string;
  condition: string;
  resourceType: string;
  resourceId: string;
  status: string;
  count: number;
  message: string;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  endpoints = await startEndpoints();
  rig = await startRig({
    perKey: 60,
    perCompany: 300,
    egress: 600,
    windowMs: 60_000,
    retry: { maxAttempts: 2 },
    // Room for the slow platform of the latency test (2.5 s per answer) within one attempt.
    timeoutMs: 10_000,
    presetsDir: PRESETS,
    now: () => new Date(Date.now() + offsetMs),
    alerts: { intervalMs: 100, smtp: { url: smtp.url, from: "alerts@gateway.test" }, retrySchedule: [200] },
    webhooks: { retrySchedule: [50], jitter: 0, pollMs: 200, disableAfter: { failures: 2, ms: 0 } },
  });
}, 60_000);
afterAll(async () => {
  await rig?.close();
  await endpoints?.close();
  await smtp?.close();
});

/** A company of its own, an admin's bearer token, and every channel routed for both severities. */
async function tenant(name: string, thresholds: Record<string, unknown> = {}): Promise<Tenant> {
  const company = await rig.addCompany(name);
  const tag = randomBytes(4).toString("hex");
  const email = `admin-${tag}@alerts.test`;
  const { ctx } = rig.gateway;
  await createOwner({
    ctx,
    input: { companyId: company.gatewayCompanyId, email, name: "Admin", role: "admin", password: OWNER_PASSWORD },
  });
  const session = await postJson(`${rig.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(session.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(session)).csrfToken);
  const made = await postJson(`${rig.url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": csrf });
  const t: Tenant = { company, token: String((await json(made)).token), tag };
  const all = ["email", "webhook", "slack", "teams"];
  const put = await owner(t, "/alert-settings", "PUT", {
    thresholds: {
      vendor_quiet: { enabled: false },
      forwarding_latency: { enabled: false },
      ...thresholds,
    },
    routes: { warning: all, critical: all },
    channels: {
      email: { to: [`ops-${tag}@alerts.test`] },
      webhook: { url: `${endpoints.url}/ops/${tag}`, secret: SECRET },
      slack: { url: `${endpoints.url}/slack/${tag}` },
      teams: { url: `${endpoints.url}/teams/${tag}` },
    },
  });
  expect(put.status).toBe(200);
  return t;
}

async function owner(t: Tenant, path: string, method = "GET", body?: unknown) {
  const res = await fetch(`${rig.url}/owner/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function alerts(t: Tenant, status?: string): Promise<AlertAnswer[]> {
  const res = await owner(t, `/alerts${status ? `?status=${status}` : ""}`);
  return res.body.alerts as AlertAnswer[];
}

/** The webhook requests of one event for one alert, each checked against its §6.3 signature. */
function signedPosts(t: Tenant, event: string, alertId: string): Posted[] {
  return endpoints.at(`/ops/${t.tag}`).filter((p) => {
    const data = (p.body.data ?? {}) as { id?: string };
    return p.body.event === event && data.id === alertId;
  });
}

function expectSigned(post: Posted): void {
  const timestamp = String(post.headers["x-svc-timestamp"]);
  const expected = Buffer.from(
    `v1=${createHmac("sha256", SECRET).update(`${timestamp}.`).update(post.raw).digest("hex")}`,
  );
  const given = Buffer.from(String(post.headers["x-svc-signature"]));
  expect(given.length).toBe(expected.length);
  expect(timingSafeEqual(given, expected)).toBe(true);
  expect(post.headers["x-svc-event"]).toBe(post.body.event);
}

/** Every channel got the notice of `event` for the alert: e-mail, signed webhook, Slack, Teams. */
async function expectNoticeEverywhere(t: Tenant, event: "alert.opened" | "alert.resolved", alert: AlertAnswer) {
  await expect
    .poll(
      () =>
        smtp.mails.filter(
          (m) =>
            m.to.includes(`ops-${t.tag}@alerts.test`) &&
            smtp.header(m, "x-alert-id") === alert.id &&
            smtp.header(m, "x-alert-event") === event,
        ).length,
      { timeout: 10_000 },
    )
    .toBe(1);
  await expect.poll(() => signedPosts(t, event, alert.id).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  for (const post of signedPosts(t, event, alert.id)) expectSigned(post);
  const slack = () => endpoints.at(`/slack/${t.tag}`).filter((p) => JSON.stringify(p.body).includes(alert.resourceId));
  const resolved = (p: Posted) => String(p.body.text).startsWith("Resolved");
  await expect
    .poll(() => slack().some((p) => (event === "alert.resolved" ? resolved(p) : !resolved(p))), { timeout: 10_000 })
    .toBe(true);
  const teams = () => endpoints.at(`/teams/${t.tag}`).filter((p) => JSON.stringify(p.body).includes(alert.resourceId));
  await expect.poll(() => teams().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  const card = (teams()[0]?.body.attachments as { contentType: string; content: { type: string } }[] | undefined)?.[0];
  expect(card).toMatchObject({
    contentType: "application/vnd.microsoft.card.adaptive",
    content: { type: "AdaptiveCard" },
  });
}

describe("an upstream credential paused by the platform (critical)", () => {
  it("opens one alert on the platform's 401, notifies every channel, and resolves once the credential is rotated", async () => {
    const t = await tenant("Paused");
    const credential = t.company.credentials[0];
    if (!credential) throw new Error("no credential");
    rig.sandbox.admin.revokeKey(credential.upstreamKey.split(".")[0] ?? "");
    const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": t.company.vendorKeys[0] ?? "" });
    expect(res.status).toBe(202);
    await expect.poll(() => alerts(t, "open"), { timeout: 10_000 }).toHaveLength(1);
    const [alert] = await alerts(t, "open");
    if (!alert) throw new Error("no alert");
    expect(alert).toMatchObject({
      condition: "credential_paused",
      resourceType: "credential",
      resourceId: credential.id,
    });
    expect(alert.message).toMatch(/refused/);
    await expectNoticeEverywhere(t, "alert.opened", alert);

    // Recovery: a key the platform takes.
    const upstream = rig.sandbox.admin.createKey({ companyId: t.company.sandboxCompanyId, kind: "general" });
    expect((await owner(t, `/credentials/${credential.id}/rotate`, "POST", { value: upstream.key })).status).toBe(200);
    await expect
      .poll(async () => (await alerts(t, "resolved")).map((a) => a.id), { timeout: 10_000 })
      .toEqual([alert.id]);
    await expectNoticeEverywhere(t, "alert.resolved", alert);
    expect(await alerts(t)).toHaveLength(1);
  });
});

describe("a connection's payloads failing to map (critical)", () => {
  it("a storm of held payloads opens one alert counting them all, which resolves when the rate falls", async () => {
    const t = await tenant("Storm", { mapping_failures: { rate: 0.5, minCount: 3 } });
    const connection = await createConnection({
      ctx: rig.gateway.ctx,
      companyId: t.company.gatewayCompanyId,
      input: { name: "Angi", preset: "angi", secrets: { apiKey: ANGI_KEY } },
    });
    const { email, ...withoutEmail } = BOOKING;
    const post = (body: unknown) => postJson(connection.hookUrl, body, { "x-api-key": ANGI_KEY });
    // The vendor renamed `email`: the preset's profile cannot make a lead, so every payload is held.
    for (let n = 0; n < 40; n++) {
      const res = await post({ ...withoutEmail, emailAddress: email, leadOid: 500_000 + n });
      expect(res.status).toBe(200);
    }
    await expect.poll(() => alerts(t, "open"), { timeout: 10_000 }).toHaveLength(1);
    await expect.poll(async () => (await alerts(t, "open"))[0]?.count, { timeout: 10_000 }).toBe(40);
    const [alert] = await alerts(t, "open");
    if (!alert) throw new Error("no alert");
    expect(alert).toMatchObject({
      condition: "mapping_failures",
      resourceType: "connection",
      resourceId: connection.id,
    });
    await expectNoticeEverywhere(t, "alert.opened", alert);
    // One alert, one notice per channel: a hundred failures are not a hundred e-mails.
    expect(smtp.mails.filter((m) => smtp.header(m, "x-alert-id") === alert.id)).toHaveLength(1);

    // The vendor sends its documented format again: held payloads fall under half of what it sent.
    for (let n = 0; n < 40; n++) {
      const booking = BOOKING.appointment as Record<string, unknown>;
      const res = await post({
        ...BOOKING,
        leadOid: 600_000 + n,
        appointment: { ...booking, appointmentOid: 60_000 + n },
      });
      expect(res.status).toBe(200);
    }
    await expect
      .poll(async () => (await alerts(t, "resolved")).map((a) => a.id), { timeout: 10_000 })
      .toEqual([alert.id]);
    await expectNoticeEverywhere(t, "alert.resolved", alert);
  });
});

describe("a webhook subscription disabled after failures (warning)", () => {
  it("opens one alert when the dispatcher disables it, and resolves when the owner enables it again", async () => {
    const t = await tenant("Disabled");
    const keys = await rig.gateway.ctx.vendorKeys.listOfCompany(t.company.gatewayCompanyId);
    const subscription = await createSubscription({
      ctx: rig.gateway.ctx,
      companyId: t.company.gatewayCompanyId,
      input: {
        vendorKeyId: keys[0]?.id ?? "",
        url: `${endpoints.url}/failing/${t.tag}`,
        events: ["submission.failed"],
      },
    });
    expect((await owner(t, `/webhooks/subscriptions/${subscription.id}/test`, "POST")).status).toBe(200);
    await expect.poll(() => alerts(t, "open"), { timeout: 10_000 }).toHaveLength(1);
    const [alert] = await alerts(t, "open");
    if (!alert) throw new Error("no alert");
    expect(alert).toMatchObject({ condition: "subscription_disabled", resourceId: subscription.id });
    await expectNoticeEverywhere(t, "alert.opened", alert);
    const enabled = await owner(t, `/webhooks/subscriptions/${subscription.id}`, "PATCH", { status: "active" });
    expect(enabled.status).toBe(200);
    await expect
      .poll(async () => (await alerts(t, "resolved")).map((a) => a.id), { timeout: 10_000 })
      .toEqual([alert.id]);
  });
});

describe("acknowledged and muted alerts", () => {
  it("a muted alert sends nothing when it resolves, while an alert not muted does (positive control)", async () => {
    const company = await rig.addCompany("Muted", 2);
    const t = await tenant("Muted-settings");
    // The settings of `t` on the company with two credentials: its own tenant, whose token is for it.
    t.company = company;
    const tag = t.tag;
    const { ctx } = rig.gateway;
    const email = `admin-${tag}-2@alerts.test`;
    await createOwner({
      ctx,
      input: { companyId: company.gatewayCompanyId, email, name: "Admin", role: "admin", password: OWNER_PASSWORD },
    });
    const session = await postJson(`${rig.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
    const cookie = String(session.headers.get("set-cookie")).split(";")[0] ?? "";
    const csrf = String((await json(session)).csrfToken);
    t.token = String(
      (await json(await postJson(`${rig.url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": csrf }))).token,
    );
    await owner(t, "/alert-settings", "PUT", {
      thresholds: { vendor_quiet: { enabled: false }, forwarding_latency: { enabled: false } },
      routes: { critical: ["webhook"] },
      channels: { webhook: { url: `${endpoints.url}/ops/${tag}`, secret: SECRET } },
    });
    for (const [i, credential] of company.credentials.entries()) {
      rig.sandbox.admin.revokeKey(credential.upstreamKey.split(".")[0] ?? "");
      await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": company.vendorKeys[i] ?? "" });
    }
    await expect.poll(() => alerts(t, "open"), { timeout: 10_000 }).toHaveLength(2);
    const [muted, control] = await alerts(t, "open");
    if (!muted || !control) throw new Error("two alerts expected");
    await expect.poll(() => signedPosts(t, "alert.opened", control.id).length, { timeout: 10_000 }).toBe(1);
    const until = new Date(Date.now() + offsetMs + 3_600_000).toISOString();
    expect((await owner(t, `/alerts/${muted.id}/mute`, "POST", { until })).body).toMatchObject({ mutedUntil: until });
    expect((await owner(t, `/alerts/${control.id}/acknowledge`, "POST")).body).toMatchObject({
      status: "acknowledged",
    });
    for (const credential of company.credentials) {
      const upstream = rig.sandbox.admin.createKey({ companyId: company.sandboxCompanyId, kind: "general" });
      await owner(t, `/credentials/${credential.id}/rotate`, "POST", { value: upstream.key });
    }
    await expect.poll(async () => (await alerts(t, "resolved")).length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => signedPosts(t, "alert.resolved", control.id).length, { timeout: 10_000 }).toBe(1);
    expect(signedPosts(t, "alert.resolved", muted.id)).toEqual([]);
  });
});

describe("forged requests to a hook URL (warning)", () => {
  it("opens one alert for a burst of refused proofs, and resolves once the window passes without one", async () => {
    const t = await tenant("Forged", { proof_failures: { count: 5, windowMinutes: 15 } });
    const connection = await createConnection({
      ctx: rig.gateway.ctx,
      companyId: t.company.gatewayCompanyId,
      input: { name: "Angi", preset: "angi", secrets: { apiKey: ANGI_KEY } },
    });
    for (let n = 0; n < 8; n++) {
      const res = await postJson(connection.hookUrl, BOOKING, { "x-api-key": `forged-${n}` });
      expect(res.status).toBe(401);
    }
    await expect.poll(() => alerts(t, "open"), { timeout: 10_000 }).toHaveLength(1);
    const [alert] = await alerts(t, "open");
    if (!alert) throw new Error("no alert");
    expect(alert).toMatchObject({ condition: "proof_failures", resourceId: connection.id, count: 8 });
    await expectNoticeEverywhere(t, "alert.opened", alert);
    advance(16 * 60_000);
    await expect
      .poll(async () => (await alerts(t, "resolved")).map((a) => a.id), { timeout: 10_000 })
      .toEqual([alert.id]);
    await expectNoticeEverywhere(t, "alert.resolved", alert);
  });
});

describe("a vendor gone quiet (warning)", () => {
  it("learns the vendor's usual interval, opens one alert past several of them, and resolves on its next lead", async () => {
    const t = await tenant("Quiet", { vendor_quiet: { enabled: true, multiple: 4, floorMinutes: 60, minHistory: 10 } });
    const credential = t.company.credentials[0];
    const [key] = await rig.gateway.ctx.vendorKeys.listOfCompany(t.company.gatewayCompanyId);
    if (!credential || !key) throw new Error("no key");
    // Twelve leads ten minutes apart, the last five minutes ago (by the context's clock).
    const now = Date.now() + offsetMs;
    await seedSubmissions(
      rig.gateway,
      Array.from({ length: 12 }, (_, i) => ({
        companyId: t.company.gatewayCompanyId,
        vendorKeyId: key.id,
        credentialId: credential.id,
        at: now - 5 * 60_000 - (11 - i) * 10 * 60_000,
        status: "forwarded" as const,
        payload: { n: i },
      })),
    );
    // An hour without a lead is not yet quiet (the floor); four intervals of ten minutes are passed, but not the floor.
    advance(50 * 60_000);
    await rig.gateway.alerts?.evaluate();
    expect(await alerts(t, "open")).toEqual([]);
    advance(20 * 60_000);
    await expect.poll(() => alerts(t, "open"), { timeout: 10_000 }).toHaveLength(1);
    const [alert] = await alerts(t, "open");
    expect(alert).toMatchObject({ condition: "vendor_quiet", resourceType: "vendor_key", resourceId: key.id });
    const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": t.company.vendorKeys[0] ?? "" });
    expect(res.status).toBe(202);
    await expect
      .poll(async () => (await alerts(t, "resolved")).map((a) => a.id), { timeout: 10_000 })
      .toEqual([alert?.id]);
  });
});

/** A fault of the sandbox's Inbound API for the test's leads (removed by the test once it has done its work). */
function fault(input: Omit<FaultSpecInput, "route">) {
  return rig.sandbox.admin.faults.add(faultSpecSchema.parse({ route: "POST /api/inbound/leads", ...input }));
}

describe("the dead letter growing (critical)", () => {
  it("a storm of leads the platform keeps refusing opens one alert, notified everywhere, resolved once the window passes without one", async () => {
    // Forwarding stamps its outcomes with the process's clock, not the context's: the two agree again here.
    offsetMs = 0;
    const t = await tenant("Dead letter", { dead_letter_growth: { count: 5, windowMinutes: 60 } });
    const key = t.company.vendorKeys[0] ?? "";
    // The platform answers 503 to every attempt (two each: the rig's retry policy), so each lead ends failed.
    const refusing = fault({ errorRate: 1, errorStatus: 503 });
    try {
      for (let n = 0; n < 12; n++) {
        expect((await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key })).status).toBe(202);
      }
      await expect
        .poll(() => rig.gateway.ctx.submissions.deadLetterSince(t.company.gatewayCompanyId, "1970-01-01T00:00:00Z"), {
          timeout: 20_000,
        })
        .toMatchObject({ entered: 12 });
    } finally {
      rig.sandbox.admin.faults.remove(refusing.id);
    }
    await expect.poll(async () => (await alerts(t, "open"))[0]?.count, { timeout: 10_000 }).toBe(12);
    const open = await alerts(t, "open");
    expect(open).toHaveLength(1);
    const [alert] = open;
    if (!alert) throw new Error("no alert");
    expect(alert).toMatchObject({
      condition: "dead_letter_growth",
      resourceType: "company",
      resourceId: t.company.gatewayCompanyId,
    });
    await expectNoticeEverywhere(t, "alert.opened", alert);
    // A storm is one alert and one notice per channel.
    expect(smtp.mails.filter((m) => smtp.header(m, "x-alert-id") === alert.id)).toHaveLength(1);
    expect(signedPosts(t, "alert.opened", alert.id)).toHaveLength(1);

    // Recovery: the platform takes leads again, and an hour passes with none failing.
    expect((await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key })).status).toBe(202);
    advance(61 * 60_000);
    await expect
      .poll(async () => (await alerts(t, "resolved")).map((a) => a.id), { timeout: 10_000 })
      .toEqual([alert.id]);
    await expectNoticeEverywhere(t, "alert.resolved", alert);
    expect(await alerts(t)).toHaveLength(1);
  });
});

describe("forwarding slower than the owner's bound (warning)", () => {
  it("leads the platform answers slowly open one alert, notified everywhere, resolved once the window moves past them", async () => {
    // Forwarding stamps its outcomes with the process's clock, not the context's: the two agree again here.
    offsetMs = 0;
    const t = await tenant("Slow", {
      forwarding_latency: { enabled: true, p95Seconds: 1, minCount: 3, windowMinutes: 15 },
    });
    const key = t.company.vendorKeys[0] ?? "";
    const post = () => postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key });
    const forwarded = async () =>
      (await rig.gateway.ctx.submissions.forwardedSince(t.company.gatewayCompanyId, "1970-01-01T00:00:00Z")).length;
    // The platform takes 2.5 s to answer each lead: accepted → forwarded is well over the owner's 1 s bound.
    const slow = fault({ latencyMs: 2_500 });
    try {
      const posted = await Promise.all(Array.from({ length: 4 }, post));
      expect(posted.map((r) => r.status)).toEqual([202, 202, 202, 202]);
      await expect.poll(forwarded, { timeout: 20_000 }).toBe(4);
    } finally {
      rig.sandbox.admin.faults.remove(slow.id);
    }
    // Opened by an evaluation that may have seen three of the slow leads forwarded (minCount 3): the next one counts
    // the fourth.
    await expect.poll(async () => (await alerts(t, "open")).map((a) => a.count), { timeout: 10_000 }).toEqual([4]);
    const [alert] = await alerts(t, "open");
    if (!alert) throw new Error("no alert");
    expect(alert).toMatchObject({
      condition: "forwarding_latency",
      resourceType: "company",
      resourceId: t.company.gatewayCompanyId,
      count: 4,
    });
    await expectNoticeEverywhere(t, "alert.opened", alert);

    // Recovery: the platform answers at once again, and the window moves past the slow leads.
    expect((await post()).status).toBe(202);
    await expect.poll(forwarded, { timeout: 20_000 }).toBe(5);
    advance(16 * 60_000);
    await expect
      .poll(async () => (await alerts(t, "resolved")).map((a) => a.id), { timeout: 10_000 })
      .toEqual([alert.id]);
    await expectNoticeEverywhere(t, "alert.resolved", alert);
    expect(await alerts(t)).toHaveLength(1);
  });
});
