import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newSandbox } from "../support.js";
import { consoleCall, startReceiver, webhookSandbox } from "./support.js";

let sandbox: ReturnType<typeof webhookSandbox>;
let session: string;
let otherSession: string;
const receiverUrl = "http://127.0.0.1:45678/hooks";

beforeEach(() => {
  sandbox = webhookSandbox();
  session = sandbox.admin.ownerSession("org_sunrise").sessionToken;
  otherSession = sandbox.admin.ownerSession("org_brightline").sessionToken;
});
afterEach(() => sandbox.close());

const call = (method: string, path: string, json?: unknown, as = session) =>
  consoleCall(sandbox, method, path, { session: as, json });
const create = (json: Record<string, unknown>, as = session) => call("POST", "/partner-api/webhooks", json, as);

describe("§5.7 console endpoints require an owner session, not an API key", () => {
  it("logs in with a seeded company's fixed test password and uses the token as bearer or cookie", async () => {
    const login = await consoleCall(sandbox, "POST", "/partner-api/session", {
      json: { companyId: "org_sunrise", password: "test_owner_org_sunrise" },
    });
    expect(login.status).toBe(201);
    expect(login.body).toMatchObject({ companyId: "org_sunrise", sessionToken: expect.stringMatching(/^sess_/) });
    const token = String(login.body.sessionToken);
    expect(login.headers.get("set-cookie")).toContain(`svc_owner_session=${token}`);
    expect((await consoleCall(sandbox, "GET", "/partner-api/webhooks", { session: token })).status).toBe(200);
    const byCookie = await sandbox.app.request("/partner-api/webhooks", {
      headers: { cookie: `svc_owner_session=${token}` },
    });
    expect(byCookie.status).toBe(200);
  });

  it("refuses a wrong password and an unknown company with the same 401", async () => {
    const wrong = await consoleCall(sandbox, "POST", "/partner-api/session", {
      json: { companyId: "org_sunrise", password: "test_owner_org_brightline" },
    });
    const unknown = await consoleCall(sandbox, "POST", "/partner-api/session", {
      json: { companyId: "org_nobody", password: "test_owner_org_nobody" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toBe(unknown.body.error);
  });

  it("an admin-made company's owner password is returned once and logs in", async () => {
    const company = sandbox.admin.createCompany({ name: "New Co", kind: "company", people: [], contractors: [] });
    const login = await consoleCall(sandbox, "POST", "/partner-api/session", {
      json: { companyId: company.id, password: company.ownerPassword },
    });
    expect(login.status).toBe(201);
  });

  it("answers 401 on every console route to an API key (even with a session), to no session, and to a bad token", async () => {
    const key = sandbox.key("sunrise-general");
    const routes: Array<[string, string]> = [
      ["POST", "/partner-api/webhooks"],
      ["GET", "/partner-api/webhooks"],
      ["GET", "/partner-api/webhooks/sub_x"],
      ["DELETE", "/partner-api/webhooks/sub_x"],
      ["POST", "/partner-api/webhooks/sub_x/rotate-secret"],
      ["POST", "/partner-api/webhooks/sub_x/activate-secret"],
      ["GET", "/partner-api/webhooks/sub_x/deliveries"],
      ["POST", "/partner-api/webhooks/sub_x/deliveries/whd_x/redeliver"],
      ["POST", "/partner-api/webhooks/sub_x/test"],
      ["GET", "/partner-api/webhook-events"],
      ["POST", "/partner-api/session"],
    ];
    for (const [method, path] of routes) {
      const json = method === "GET" ? undefined : {};
      const withKey = await consoleCall(sandbox, method, path, { key, session, json });
      expect([method, path, withKey.status, withKey.body.error]).toEqual([
        method,
        path,
        401,
        expect.stringContaining("owner session"),
      ]);
      if (path === "/partner-api/session") continue;
      expect([path, (await consoleCall(sandbox, method, path, { json })).status]).toEqual([path, 401]);
      expect([path, (await consoleCall(sandbox, method, path, { session: "sess_forged", json })).status]).toEqual([
        path,
        401,
      ]);
    }
  });

  it("a session expires after 12 hours", async () => {
    let now = Date.parse("2026-09-01T08:00:00Z");
    const clocked = newSandbox({ clock: { now: () => now } });
    try {
      const token = clocked.admin.ownerSession("org_sunrise").sessionToken;
      const list = () => consoleCall(clocked, "GET", "/partner-api/webhooks", { session: token });
      now += 12 * 3600 * 1000 - 1;
      expect((await list()).status).toBe(200);
      now += 1;
      expect((await list()).status).toBe(401);
    } finally {
      clocked.close();
    }
  });

  it("a session ends on logout", async () => {
    expect((await call("DELETE", "/partner-api/session")).status).toBe(200);
    expect((await call("GET", "/partner-api/webhooks")).status).toBe(401);
  });
});

describe("§4.3 POST /partner-api/webhooks: create a subscription", () => {
  it("answers 201 with the secret shown once (version 1); later reads show versions, never the secret", async () => {
    const created = await create({ url: receiverUrl, events: ["appointment.booked"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^sub_/),
      url: receiverUrl,
      events: ["appointment.booked"],
      partnerType: "licensee",
      partnerKeyIds: [],
      secret: expect.stringMatching(/^whsec_[\w-]{43}$/),
      secretVersion: 1,
      currentSecretVersion: 1,
      pendingSecretVersion: null,
    });
    const listed = await call("GET", "/partner-api/webhooks");
    expect(listed.body.subscriptions).toEqual([expect.objectContaining({ id: created.body.id })]);
    expect(JSON.stringify(listed.body)).not.toContain(String(created.body.secret));
    const one = await call("GET", `/partner-api/webhooks/${created.body.id}`);
    expect(one.body).not.toHaveProperty("secret");
  });

  it("400 naming every unknown event", async () => {
    const reply = await create({ url: receiverUrl, events: ["appointment.booked", "lead.created", "quote.snet"] });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("events: unknown events: lead.created, quote.snet");
    expect(reply.body.unknown).toEqual(["lead.created", "quote.snet"]);
  });

  it("§1: 400 naming the events outside the partner type's groups", async () => {
    const partner = async (type: string) =>
      String((await call("POST", "/partner-api/partners", { name: `a ${type}`, type })).body.id);
    const vendor = await create({
      url: receiverUrl,
      events: ["appointment.booked", "quote.sent"],
      partnerId: await partner("booking_vendor"),
    });
    expect(vendor.status).toBe(400);
    expect(vendor.body.error).toBe("events: not open to partner type booking_vendor: quote.sent");
    const source = await create({
      url: receiverUrl,
      events: ["quote.sent", "quote.accepted", "project.completed"],
      partnerId: await partner("lead_source"),
    });
    expect(source.status).toBe(201);
    expect(source.body).toMatchObject({ partnerType: "lead_source" });
    const installerSession = sandbox.admin.ownerSession("org_voltworks").sessionToken;
    const installer = await create(
      { url: receiverUrl, events: ["install.job_assigned", "deposit.paid"] },
      installerSession,
    );
    expect(installer.body.notAllowed).toEqual(["deposit.paid"]);
    const accounting = await create({
      url: receiverUrl,
      events: ["appointment.booked"],
      partnerId: await partner("accounting"),
    });
    expect(accounting.body.notAllowed).toEqual(["appointment.booked"]);
  });

  it("§1: the type belongs to the partner — a subscription inherits it and cannot choose or widen it", async () => {
    const partner = await call("POST", "/partner-api/partners", { name: "Leads Inc", type: "lead_source" });
    expect(partner.status).toBe(201);
    const partnerId = String(partner.body.id);
    const widened = await create({ url: receiverUrl, events: ["quote.sent"], partnerId, partnerType: "licensee" });
    expect(widened.status).toBe(400);
    expect(widened.body).toMatchObject({ field: "partnerType", partnerType: "lead_source" });
    const chosen = await create({ url: receiverUrl, events: ["quote.sent"], partnerType: "lead_source" });
    expect(chosen.status).toBe(400);
    expect(chosen.body.field).toBe("partnerType");
    const inherited = await create({ url: receiverUrl, events: ["quote.sent"], partnerId, partnerType: "lead_source" });
    expect(inherited.status).toBe(201);
    expect(inherited.body).toMatchObject({ partnerType: "lead_source", partnerId });
    const installer = sandbox.admin.ownerSession("org_voltworks").sessionToken;
    const asLicensee = await create(
      { url: receiverUrl, events: ["install.job_assigned"], partnerType: "licensee" },
      installer,
    );
    expect(asLicensee.status).toBe(400);
    // Another company's partner is not found (§7), and a key of another partner is refused.
    const other = sandbox.admin.ownerSession("org_brightline").sessionToken;
    expect((await create({ url: receiverUrl, events: ["quote.sent"], partnerId }, other)).status).toBe(404);
    const keyed = await create({
      url: receiverUrl,
      events: ["quote.sent"],
      partnerId,
      partnerKeyIds: ["svc_test_SUNgn0001"],
    });
    expect(keyed.body.field).toBe("partnerKeyIds");
  });

  it("§1: the company's own subscription keeps the body the gateway sends (licensee with its own keys)", async () => {
    const own = await create({
      url: receiverUrl,
      partnerType: "licensee",
      events: ["appointment.booked", "quote.sent", "quote.accepted", "project.completed"],
      partnerKeyIds: ["svc_test_SUNgn0001"],
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ partnerType: "licensee", partnerId: null, partnerKeyIds: ["svc_test_SUNgn0001"] });
  });

  it("400 for bad URLs: not absolute, other schemes, credentials, private and metadata addresses, low ports", async () => {
    for (const url of [
      "not a url",
      "ftp://127.0.0.1/hooks",
      "http://user:pw@127.0.0.1:4000/hooks",
      "http://10.0.0.5:8080/hooks",
      "https://169.254.169.254/latest",
      "http://127.0.0.1:22/hooks",
      "http://example.com/hooks",
    ]) {
      const reply = await create({ url, events: ["appointment.booked"] });
      expect([url, reply.status, reply.body.field]).toEqual([url, 400, "url"]);
    }
  });

  it("the sandbox allows loopback endpoints over http (127.0.0.1, [::1], localhost)", async () => {
    for (const url of ["http://127.0.0.1:9999/a", "http://[::1]:9999/a", "http://localhost:9999/a"]) {
      expect((await create({ url, events: ["appointment.booked"] })).status).toBe(201);
    }
  });

  it("400 for a body without events, or with partnerKeyIds that are not the company's keys", async () => {
    expect((await create({ url: receiverUrl, events: [] })).status).toBe(400);
    expect((await create({ url: receiverUrl })).body.field).toBe("events");
    const foreign = await create({
      url: receiverUrl,
      events: ["appointment.booked"],
      partnerKeyIds: ["svc_test_BRTgn0001"],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.field).toBe("partnerKeyIds");
    const own = await create({
      url: receiverUrl,
      events: ["appointment.booked"],
      partnerKeyIds: ["svc_test_SUNgn0001"],
    });
    expect(own.body.partnerKeyIds).toEqual(["svc_test_SUNgn0001"]);
  });

  it("§7: another company's subscription is 404 on every route, as an unknown one is", async () => {
    const id = String((await create({ url: receiverUrl, events: ["appointment.booked"] })).body.id);
    const paths: Array<[string, string, unknown?]> = [
      ["GET", `/partner-api/webhooks/${id}`],
      ["POST", `/partner-api/webhooks/${id}/rotate-secret`],
      ["POST", `/partner-api/webhooks/${id}/activate-secret`, { pendingSecretVersion: 2 }],
      ["GET", `/partner-api/webhooks/${id}/deliveries`],
      ["POST", `/partner-api/webhooks/${id}/test`],
      ["POST", `/partner-api/webhooks/${id}/deliveries/whd_x/redeliver`],
      ["DELETE", `/partner-api/webhooks/${id}`],
    ];
    for (const [method, path, json] of paths) {
      const reply = await call(method, path, json, otherSession);
      expect([path, reply.status]).toEqual([path, 404]);
    }
    expect((await call("GET", "/partner-api/webhooks", undefined, otherSession)).body.subscriptions).toEqual([]);
    expect((await call("GET", `/partner-api/webhooks/${id}`)).status).toBe(200);
  });

  it("DELETE removes the subscription", async () => {
    const id = String((await create({ url: receiverUrl, events: ["appointment.booked"] })).body.id);
    expect((await call("DELETE", `/partner-api/webhooks/${id}`)).body).toEqual({ id, deleted: true });
    expect((await call("GET", `/partner-api/webhooks/${id}`)).status).toBe(404);
  });
});

describe("§4.3 rotate-secret and activate-secret (§6.5)", () => {
  it("rotate creates a pending secret with the next version, shown once; current stays until activation", async () => {
    const id = String((await create({ url: receiverUrl, events: ["appointment.booked"] })).body.id);
    const rotated = await call("POST", `/partner-api/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ id, pendingSecretVersion: 2, currentSecretVersion: 1 });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect((await call("GET", `/partner-api/webhooks/${id}`)).body).toMatchObject({
      currentSecretVersion: 1,
      pendingSecretVersion: 2,
    });

    const activated = await call("POST", `/partner-api/webhooks/${id}/activate-secret`, { pendingSecretVersion: 2 });
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ id, currentSecretVersion: 2, previousSecretVersion: 1 });
    const overlapMs = Date.parse(String(activated.body.previousSecretValidUntil)) - Date.now();
    expect(overlapMs).toBeGreaterThan(3500 * 1000);
    expect(overlapMs).toBeLessThanOrEqual(3600 * 1000);
    expect((await call("GET", `/partner-api/webhooks/${id}`)).body).toMatchObject({
      currentSecretVersion: 2,
      pendingSecretVersion: null,
    });
  });

  it("a second rotation replaces the unused pending secret with a new version number", async () => {
    const id = String((await create({ url: receiverUrl, events: ["appointment.booked"] })).body.id);
    await call("POST", `/partner-api/webhooks/${id}/rotate-secret`);
    const again = await call("POST", `/partner-api/webhooks/${id}/rotate-secret`);
    expect(again.body.pendingSecretVersion).toBe(3);
    const stale = await call("POST", `/partner-api/webhooks/${id}/activate-secret`, { pendingSecretVersion: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toContain("the pending version is 3");
  });

  it("activation without a pending secret is 409; a body without an integer pendingSecretVersion is 400", async () => {
    const id = String((await create({ url: receiverUrl, events: ["appointment.booked"] })).body.id);
    const none = await call("POST", `/partner-api/webhooks/${id}/activate-secret`, { pendingSecretVersion: 2 });
    expect(none.status).toBe(409);
    for (const body of [
      {},
      { pendingSecretVersion: "2" },
      { pendingSecretVersion: 1.5 },
      { pendingSecretVersion: 0 },
    ]) {
      const reply = await call("POST", `/partner-api/webhooks/${id}/activate-secret`, body);
      expect([body, reply.status, reply.body.field]).toEqual([body, 400, "pendingSecretVersion"]);
    }
  });
});

describe("§4.3 GET /partner-api/webhook-events", () => {
  it("lists the §6.7 catalogue, the signature scheme v1 and what each partner type may subscribe to", async () => {
    const reply = await call("GET", "/partner-api/webhook-events");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ signatureScheme: "v1", apiVersion: "2026-08-26", schemaVersion: 1 });
    const names = (reply.body.events as Array<{ name: string }>).map((e) => e.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "appointment.booked",
        "quote.sent",
        "project.completed",
        "install.test",
        "install.job_assigned",
      ]),
    );
    // §6.7's twenty, the journal event of accounting partners and the contractor note (docs/decisions.md).
    expect(names).toHaveLength(22);
    expect(reply.body.partnerTypes).toMatchObject({
      booking_vendor: ["appointment.booked", "install.test"],
      lead_source: ["quote.sent", "quote.accepted", "project.completed", "install.test"],
      accounting: ["install.test", "journal.entry_posted"],
    });
  });
});

describe("§1 reset without notice", () => {
  it("drops subscriptions and sessions; seeded owner logins work again with their fixed passwords", async () => {
    const receiver = await startReceiver();
    await create({ url: receiver.url, events: ["appointment.booked"] });
    sandbox.admin.reset();
    expect((await call("GET", "/partner-api/webhooks")).status).toBe(401);
    const fresh = sandbox.admin.ownerSession("org_sunrise").sessionToken;
    expect((await call("GET", "/partner-api/webhooks", undefined, fresh)).body.subscriptions).toEqual([]);
    await receiver.close();
  });
});
