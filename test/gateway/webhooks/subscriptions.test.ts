import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUpstreamCredential } from "../../../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import { createCompany } from "../../../src/gateway/tenants/create-company.js";
import { createOwner } from "../../../src/gateway/tenants/create-owner.js";
import { OWNER_PASSWORD } from "../../helpers/gateway.js";
import { bearer, ownerApi, seedCompany, startGateway, type WebhookGateway } from "./support.js";

interface Company {
  email: string;
  issueKey(input: { partnerType: "booking_vendor" }): Promise<{ id: string }>;
}

/** A live-mode company (seedCompany makes test credentials, which live mode refuses). */
async function seedLiveCompany(gw: WebhookGateway) {
  const ctx = gw.gateway.ctx;
  const company = await createCompany({ ctx, input: { name: "Live Co" } });
  const email = "live-owner@example.test";
  await createOwner({
    ctx,
    input: { companyId: company.id, email, name: "Owner", role: "admin", password: OWNER_PASSWORD },
  });
  const credential = await createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: { name: "general", value: "svc_live_upstream0001.secretsecretsecretsecretsecret" },
  });
  return {
    email,
    issueKey: async (input: { partnerType: "booking_vendor" }) =>
      await createVendorKey({
        ctx,
        companyId: company.id,
        input: { name: "v", scopes: ["appointments:write"], credentialId: credential.id, ...input },
      }),
  };
}

let live: WebhookGateway;
let sandbox: WebhookGateway;
let liveCo: Company;
let liveApi: ReturnType<typeof ownerApi>;
let sandboxCo: Awaited<ReturnType<typeof seedCompany>>;
let sandboxApi: ReturnType<typeof ownerApi>;

beforeAll(async () => {
  live = await startGateway({ mode: "live" });
  sandbox = await startGateway({ mode: "sandbox" });
  liveCo = await seedLiveCompany(live);
  liveApi = ownerApi(live.url, await bearer(live.url, liveCo.email));
  sandboxCo = await seedCompany(sandbox.gateway, "Sandbox Co");
  sandboxApi = ownerApi(sandbox.url, await bearer(sandbox.url, sandboxCo.email));
});
afterAll(async () => {
  await live.close();
  await sandbox.close();
});

async function subscribe(api: ReturnType<typeof ownerApi>, company: Company, url: string) {
  const key = await company.issueKey({ partnerType: "booking_vendor" });
  return api("POST", "/subscriptions", { vendorKeyId: key.id, url, events: ["appointment.booked"] });
}

describe("SSRF guard: endpoint URLs refused at subscription creation in live mode", () => {
  const refused: Array<[string, string]> = [
    ["http://hooks.example.com/hooks", "scheme_not_allowed"],
    ["http://93.184.216.34/hooks", "scheme_not_allowed"],
    ["https://127.0.0.1/hooks", "address_not_allowed"],
    ["https://[::1]/hooks", "address_not_allowed"],
    ["https://10.1.2.3/hooks", "address_not_allowed"],
    ["https://172.16.0.1/hooks", "address_not_allowed"],
    ["https://192.168.1.1/hooks", "address_not_allowed"],
    ["https://169.254.169.254/latest/meta-data", "address_not_allowed"],
    ["https://100.64.0.1/hooks", "address_not_allowed"],
    ["https://[::ffff:10.0.0.1]/hooks", "address_not_allowed"],
    ["https://localhost/hooks", "host_not_allowed"],
    ["https://metadata.google.internal/computeMetadata", "host_not_allowed"],
    ["https://user:pass@hooks.example.com/x", "credentials_in_url"],
    ["https://hooks.example.com:22/x", "port_not_allowed"],
  ];
  for (const [url, reason] of refused) {
    it(`refuses ${url} (${reason})`, async () => {
      const res = await subscribe(liveApi, liveCo, url);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: "url", reason });
    });
  }

  it("accepts a public https endpoint (names are checked again at every connection)", async () => {
    const res = await subscribe(liveApi, liveCo, "https://hooks.example.com/partner");
    expect(res.status).toBe(201);
  });

  it("allows a loopback http receiver in sandbox mode only", async () => {
    expect((await subscribe(sandboxApi, sandboxCo, "http://127.0.0.1:8081/hooks")).status).toBe(201);
    expect((await subscribe(sandboxApi, sandboxCo, "http://10.0.0.8/hooks")).status).toBe(400);
    expect((await subscribe(sandboxApi, sandboxCo, "https://169.254.169.254/")).status).toBe(400);
  });

  it("checks a changed URL the same way", async () => {
    const created = await subscribe(liveApi, liveCo, "https://hooks.example.com/a");
    const res = await liveApi("PATCH", `/subscriptions/${created.body.id}`, { url: "https://192.168.0.10/b" });
    expect(res.status).toBe(400);
  });
});

describe("§4.3/§6.5 subscription secrets: shown once, sealed at rest, two-phase rotation", () => {
  it("shows the secret only in the create and rotate answers, never in reads", async () => {
    const created = await subscribe(sandboxApi, sandboxCo, "http://127.0.0.1:8081/hooks");
    const secret = (created.body.secret as { version: number; secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);
    const id = String(created.body.id);
    const read = await sandboxApi("GET", `/subscriptions/${id}`);
    const list = await sandboxApi("GET", "/subscriptions");
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(read.body.secrets).toEqual({
      currentVersion: 1,
      pendingVersion: null,
      versions: [{ version: 1, notAfter: null }],
    });
    const row = await sandbox.gateway.ctx.webhooks.subscriptions.getOfCompany(id, sandboxCo.company.id);
    expect(row?.sealedSecrets).toEqual(expect.any(String));
    expect(row?.sealedSecrets).not.toContain(secret);
    expect(sandbox.logText()).not.toContain(secret);
  });

  it("rotates to a pending version, activates only the pending one, keeps the previous for the overlap", async () => {
    const created = await subscribe(sandboxApi, sandboxCo, "http://127.0.0.1:8081/hooks");
    const id = String(created.body.id);
    const rotated = await sandboxApi("POST", `/subscriptions/${id}/rotate-secret`);
    expect(rotated.body).toMatchObject({ pendingSecretVersion: 2 });
    expect((await sandboxApi("POST", `/subscriptions/${id}/activate-secret`, { pendingSecretVersion: 3 })).status).toBe(
      409,
    );
    const activated = await sandboxApi("POST", `/subscriptions/${id}/activate-secret`, {
      pendingSecretVersion: 2,
      overlapSeconds: 120,
    });
    expect(activated.body.secrets).toMatchObject({ currentVersion: 2, pendingVersion: null });
    const versions = (activated.body.secrets as { versions: Array<{ version: number; notAfter: string | null }> })
      .versions;
    expect(versions[0]?.version).toBe(1);
    expect(versions[0]?.notAfter).not.toBeNull();
  });

  it("changes the events and deletes; a deleted subscription is a 404", async () => {
    const created = await subscribe(sandboxApi, sandboxCo, "http://127.0.0.1:8081/hooks");
    const id = String(created.body.id);
    const changed = await sandboxApi("PATCH", `/subscriptions/${id}`, {
      events: ["appointment.booked", "submission.failed"],
    });
    expect(changed.body.events).toEqual(["appointment.booked", "submission.failed"]);
    expect((await sandboxApi("DELETE", `/subscriptions/${id}`)).status).toBe(200);
    expect((await sandboxApi("GET", `/subscriptions/${id}`)).status).toBe(404);
  });

  it("binds only a published outbound profile version of the company", async () => {
    const key = await sandboxCo.issueKey({ partnerType: "booking_vendor" });
    const payload = { n: "Ada", e: "ada@example.com", p: "5550102000", a: "1 Main St" };
    const expected = { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };
    const lead = await sandboxCo.publishProfile("lead", `{ "fullName": n, "email": e, "phone": p, "address": a }`, [
      { name: "s", payload, expect: { body: expected } },
    ]);
    const res = await sandboxApi("POST", "/subscriptions", {
      vendorKeyId: key.id,
      url: "http://127.0.0.1:8081/hooks",
      events: ["appointment.booked"],
      outboundProfileVersionId: lead.version.id,
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe("outboundProfileVersionId");
  });
});

describe("§4.3 the webhook owner API is documented", () => {
  it("lists the webhook routes in the OpenAPI document", async () => {
    const res = await fetch(`${sandbox.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/owner/v1/webhooks/subscriptions",
        "/owner/v1/webhooks/subscriptions/{subscriptionId}/rotate-secret",
        "/owner/v1/webhooks/platform/secrets",
        "/owner/v1/webhooks/deliveries/{deliveryId}/redeliver",
      ]),
    );
  });

  it("refuses changes from a viewer owner (403)", async () => {
    const email = `viewer-${Date.now()}@example.test`;
    await createOwner({
      ctx: sandbox.gateway.ctx,
      input: { companyId: sandboxCo.company.id, email, name: "Viewer", role: "viewer", password: OWNER_PASSWORD },
    });
    const viewer = ownerApi(sandbox.url, await bearer(sandbox.url, email));
    expect((await viewer("GET", "/subscriptions")).status).toBe(200);
    const key = await sandboxCo.issueKey({ partnerType: "booking_vendor" });
    const res = await viewer("POST", "/subscriptions", {
      vendorKeyId: key.id,
      url: "http://127.0.0.1:8081/hooks",
      events: ["appointment.booked"],
    });
    expect(res.status).toBe(403);
  });
});
