import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ENDS_AT, newLead, STARTS_AT } from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.js";

/**
 * §4.3 console endpoints and §6 deliveries. Owner logins: the sandbox's fixed test passwords by default; another
 * deployment names them in CONFORMANCE_OWNERS (docs/sandbox.md). Deliveries go to a receiver on this machine, so the
 * target must be able to reach it (a sandbox on the same host does).
 */
const ownersSchema = z.object({
  owner: z.object({ companyId: z.string(), password: z.string() }),
  otherOwner: z.object({ companyId: z.string(), password: z.string() }),
});
const owners = ownersSchema.parse(
  process.env.CONFORMANCE_OWNERS
    ? JSON.parse(process.env.CONFORMANCE_OWNERS)
    : {
        owner: { companyId: "org_sunrise", password: "test_owner_org_sunrise" },
        otherOwner: { companyId: "org_brightline", password: "test_owner_org_brightline" },
      },
);

let target: Target;
let session: string;
let otherSession: string;
let hook: WebhookReceiver;
let leadId: string;

async function login(owner: { companyId: string; password: string }): Promise<string> {
  const reply = await call(target, "POST", "/partner-api/session", { json: owner });
  expect(reply.status).toBe(201);
  return (reply.body as { sessionToken: string }).sessionToken;
}

const consoleCall = (method: string, path: string, json?: unknown, as = session): Promise<Reply> =>
  call(target, method, path, { json, headers: { authorization: `Bearer ${as}` } });
const body = (reply: Reply) => reply.body as Record<string, unknown>;

async function subscribe(events: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const created = await consoleCall("POST", "/partner-api/webhooks", { url: hook.url, events, ...extra });
  expect(created.status).toBe(201);
  hook.secrets.set(Number(body(created).secretVersion), String(body(created).secret));
  return String(body(created).id);
}

async function book(): Promise<string> {
  const reply = await call(target, "POST", "/api/inbound/appointments", {
    key: target.keys.general,
    json: { leadId, startsAt: STARTS_AT, endsAt: ENDS_AT, idempotencyKey: randomUUID() },
  });
  expect(reply.status).toBe(201);
  return (reply.body as { appointmentId: string }).appointmentId;
}

beforeAll(async () => {
  target = await openTarget();
  hook = await startWebhookReceiver();
  session = await login(owners.owner);
  otherSession = await login(owners.otherOwner);
  const lead = await call(target, "POST", "/api/inbound/leads", { key: target.keys.general, json: newLead() });
  leadId = (lead.body as { leadId: string }).leadId;
});
afterAll(async () => {
  const list = await consoleCall("GET", "/partner-api/webhooks");
  for (const s of (body(list).subscriptions ?? []) as Array<{ id: string; url: string }>) {
    if (s.url === hook.url) await consoleCall("DELETE", `/partner-api/webhooks/${s.id}`);
  }
  await hook.close();
  await target.close();
});

describe("§5.7 console endpoints require an owner session, not an API key", () => {
  it("an API key is 401 on the console, with or without a session; no session is 401", async () => {
    const withKey = await call(target, "GET", "/partner-api/webhook-events", { key: target.keys.general });
    expect(withKey.status).toBe(401);
    errorMessage(withKey);
    const both = await call(target, "GET", "/partner-api/webhooks", {
      key: target.keys.general,
      headers: { authorization: `Bearer ${session}` },
    });
    expect(both.status).toBe(401);
    expect((await call(target, "POST", "/partner-api/webhooks", { json: { url: hook.url, events: [] } })).status).toBe(
      401,
    );
  });
});

describe("§4.3 GET /partner-api/webhook-events", () => {
  it("lists the §6.7 catalogue and reports signature scheme v1", async () => {
    const reply = await consoleCall("GET", "/partner-api/webhook-events");
    expect(reply.status).toBe(200);
    expect(body(reply).signatureScheme).toBe("v1");
    const names = (body(reply).events as Array<{ name: string }>).map((e) => e.name);
    for (const name of ["quote.sent", "quote.accepted", "appointment.booked", "project.completed", "install.test"]) {
      expect(names).toContain(name);
    }
  });
});

describe("§4.3 POST /partner-api/webhooks", () => {
  it("400 naming an unknown event; 400 naming the url field for a URL that is not absolute", async () => {
    const unknown = await consoleCall("POST", "/partner-api/webhooks", { url: hook.url, events: ["no.such_event"] });
    expect(unknown.status).toBe(400);
    expect(errorMessage(unknown)).toContain("no.such_event");
    const badUrl = await consoleCall("POST", "/partner-api/webhooks", { url: "/relative", events: ["quote.sent"] });
    expect(badUrl.status).toBe(400);
    expect(errorMessage(badUrl)).toContain("url");
  });

  it("§7: another company's subscription is 404", async () => {
    const id = await subscribe(["quote.sent"]);
    expect(
      (await consoleCall("POST", `/partner-api/webhooks/${id}/rotate-secret`, undefined, otherSession)).status,
    ).toBe(404);
  });
});

describe("§4.2 rule 2, §6.1–§6.3: a booking is delivered, enveloped and signed", () => {
  it("appointment.booked reaches a subscriber with the §6.1 envelope and a v1 signature the receiver verifies", async () => {
    await subscribe(["appointment.booked"]);
    const before = hook.deliveries.length;
    const appointmentId = await book();
    const [got] = (await hook.waitFor(before + 1)).slice(before);
    expect(got?.verification).toMatchObject({ ok: true, event: "appointment.booked", secretVersion: 1 });
    expect(got?.headers["x-svc-signature"]).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(got?.headers["x-svc-delivery-id"]).toBeTruthy();
    const envelope = JSON.parse(String(got?.rawBody)) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      event: "appointment.booked",
      apiVersion: "2026-08-26",
      schemaVersion: 1,
      resource: { id: appointmentId, version: 1 },
      data: { appointmentId, leadId, startsAt: STARTS_AT, endsAt: ENDS_AT },
    });
  });
});

describe("§6.5 two-phase rotation", () => {
  it("rotate keeps signing with the current version; activate signs with the pending one", async () => {
    const id = await subscribe(["install.test"]);
    const rotated = await consoleCall("POST", `/partner-api/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(201);
    const pending = Number(body(rotated).pendingSecretVersion);
    expect(pending).toBe(2);
    hook.secrets.set(pending, String(body(rotated).secret));

    let before = hook.deliveries.length;
    expect((await consoleCall("POST", `/partner-api/webhooks/${id}/test`)).status).toBe(202);
    let [got] = (await hook.waitFor(before + 1)).slice(before);
    expect(got?.headers["x-svc-secret-version"]).toBe("1");
    expect(got?.verification.ok).toBe(true);

    const activated = await consoleCall("POST", `/partner-api/webhooks/${id}/activate-secret`, {
      pendingSecretVersion: pending,
    });
    expect(activated.status).toBe(200);
    before = hook.deliveries.length;
    await consoleCall("POST", `/partner-api/webhooks/${id}/test`);
    [got] = (await hook.waitFor(before + 1)).slice(before);
    expect(got?.headers["x-svc-secret-version"]).toBe("2");
    expect(got?.verification).toMatchObject({ ok: true, event: "install.test", secretVersion: 2 });
    expect(JSON.parse(String(got?.rawBody))).toMatchObject({ resource: { type: "subscription", id } });
  });
});
