import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appointmentSchema } from "../../src/contract/appointment.js";
import { leadSchema } from "../../src/contract/lead.js";
import { answersOf } from "../../src/gateway/intake/intake-answers.js";
import { postingDocs as postingDocsSchema } from "../../src/gateway/owner/routes/posting-docs.schemas.js";
import { loadProfileDir } from "../../src/gateway/profiles/load.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

const HOMEQUOTE = new URL("../../profiles/homequote-marketplace", import.meta.url).pathname;

let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let rival: Awaited<ReturnType<typeof seedCompany>>;
let tokens: { admin: string; viewer: string; rival: string };
let homequote: { id: string; key: string };
let canonical: { id: string; key: string };
let rivalKey: { id: string; key: string; name: string };
let sampleNames: string[];

async function bearer(email: string): Promise<string> {
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = await json(signIn);
  const res = await postJson(`${t.url}/owner/v1/tokens`, { name: "ci" }, { cookie, "x-csrf-token": String(csrfToken) });
  return String((await json(res)).token);
}

const owner = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${t.url}/owner/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) },
  });

async function docsOf(keyId: string, token = tokens.viewer) {
  const res = await owner(`/keys/${keyId}/posting-docs`, token);
  expect(res.status, await res.clone().text()).toBe(200);
  return postingDocsSchema.parse(await res.json());
}

beforeAll(async () => {
  t = await startTestGateway({ publicUrl: "https://gateway.example.test/" });
  acme = await seedCompany(t.gateway, "Acme Solar");
  rival = await seedCompany(t.gateway, "Rival Roofing");
  const viewerEmail = `viewer-${Date.now()}@example.test`;
  await createOwner({
    ctx: t.gateway.ctx,
    input: { companyId: acme.company.id, email: viewerEmail, name: "V", role: "viewer", password: OWNER_PASSWORD },
  });
  tokens = { admin: await bearer(acme.email), viewer: await bearer(viewerEmail), rival: await bearer(rival.email) };
  const loaded = await loadProfileDir(HOMEQUOTE);
  sampleNames = loaded.samples.map((s) => s.name);
  const { version } = await acme.publishProfile("lead", loaded.expression, loaded.samples);
  homequote = await acme.issueKey({ name: "HomeQuote", scopes: ["leads:write"], leadProfileVersionId: version.id });
  canonical = await acme.issueKey({ name: "Canonical vendor" });
  rivalKey = { ...(await rival.issueKey({ name: "Rival's secret vendor" })), name: "Rival's secret vendor" };
});
afterAll(() => t.close());

describe("posting docs of a key with a profile (D-325, D-326)", () => {
  it("say where to send and how to authenticate, on the gateway's public base URL, without the key's secret", async () => {
    const docs = await docsOf(homequote.id);
    expect(docs.baseUrl).toBe("https://gateway.example.test");
    expect(docs.operations.map((op) => [op.kind, op.url, op.scope])).toEqual([
      ["lead", "https://gateway.example.test/api/inbound/leads", "leads:write"],
    ]);
    expect(docs.status.url).toBe("https://gateway.example.test/api/inbound/submissions/{submissionId}");
    expect(docs.authentication.header).toBe("x-api-key");
    const secret = homequote.key.split(".")[1] ?? "";
    expect(secret.length).toBeGreaterThan(20);
    expect(JSON.stringify(docs)).not.toContain(secret);
    expect(JSON.stringify(docs)).toContain(docs.key.keyPrefix);
  });

  it("list the fields the bound version reads, derived from its expression, typed from its golden samples", async () => {
    const [lead] = (await docsOf(homequote.id)).operations;
    const field = (path: string, where?: string) => lead?.fields.find((f) => f.path === path && f.where === where);
    expect(field("contact.email")).toEqual({
      path: "contact.email",
      feeds: ["email"],
      types: ["string"],
      need: "required",
      readAs: "an e-mail address",
    });
    expect(field("contact.phones[].number[0]", 'type = "mobile"')).toMatchObject({
      feeds: ["phone"],
      need: "oneOf",
      alternatives: ["contact.phones.number[0]"],
      types: ["string"],
    });
    expect(field("contact.phones[].type")).toMatchObject({ need: "optional", readAs: "picks the item" });
    expect(field("property.address.unit")).toMatchObject({ need: "optional" });
    expect(field("contact.preferences.textOk")).toMatchObject({ feeds: ["smsConsent"], need: "optional" });
    expect(lead?.profile?.version).toBe(1);
  });

  it("give the record's rules from the canonical schema, an example from the golden samples, the catalogue's answers and the limits in force", async () => {
    const docs = await docsOf(homequote.id);
    const [lead] = docs.operations;
    expect(lead?.record.find((r) => r.field === "fullName")).toEqual({
      field: "fullName",
      type: "string",
      required: true,
      rules: [
        "1 to 120 characters",
        "no control characters or bidirectional overrides (tabs and line breaks become spaces)",
      ],
    });
    expect(lead?.record.find((r) => r.field === "smsConsent")?.required).toBe(false);
    expect(lead?.example?.name).toBe(sampleNames[0]);
    expect(lead?.answers.map((a) => a.status)).toEqual(answersOf("lead").map((a) => a.status));
    expect(lead?.answers.map((a) => a.status)).toEqual(
      expect.arrayContaining([202, 400, 401, 403, 409, 413, 429, 503]),
    );
    expect(docs.status.answers.map((a) => a.status)).toEqual(answersOf("status").map((a) => a.status));
    const { settings } = t.gateway.ctx;
    expect(docs.rateLimits).toEqual({
      intake: settings.intakeLimit,
      forwarding: {
        perCredential: { limit: 60, windowSeconds: 60 },
        perCompany: { limit: 300, windowSeconds: 60 },
        egress: { limit: 600, windowSeconds: 60 },
      },
    });
  });

  it("§8: follow a company's own arrangement for its limits", async () => {
    await t.gateway.ctx.tenants.updateCompany(rival.company.id, {
      name: "Rival Roofing",
      limits: { perCredential: 120, perCompany: 900 },
    });
    const docs = await docsOf(rivalKey.id, tokens.rival);
    expect(docs.rateLimits.forwarding).toEqual({
      perCredential: { limit: 120, windowSeconds: 60 },
      perCompany: { limit: 900, windowSeconds: 60 },
      egress: { limit: 600, windowSeconds: 60 },
    });
  });
});

describe("posting docs stay true when a new version is published (D-325)", () => {
  it("describe the version bound now: a new version changes them once it is bound, not before", async () => {
    const v1 = `{ "fullName": name, "email": mail, "phone": tel, "address": addr }`;
    const v2 = `{ "fullName": person.fullName, "email": person.email, "phone": person.phone, "address": person.address }`;
    const payload1 = { name: "Ada", mail: "ada@example.com", tel: "5550102000", addr: "1 Main St" };
    const payload2 = {
      person: { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" },
    };
    const body = { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };
    const { profile, version } = await acme.publishProfile("lead", v1, [
      { name: "flat", payload: payload1, expect: { body } },
    ]);
    const key = await acme.issueKey({
      name: "Moving vendor",
      scopes: ["leads:write"],
      leadProfileVersionId: version.id,
    });
    const paths = async () => (await docsOf(key.id)).operations[0]?.fields.map((f) => f.path).sort();
    expect(await paths()).toEqual(["addr", "mail", "name", "tel"]);

    const saved = await owner(`/profiles/${profile.id}/versions`, tokens.admin, {
      method: "POST",
      body: JSON.stringify({ expression: v2, samples: [{ name: "nested", payload: payload2, expect: { body } }] }),
    });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const newVersion = (await json(saved)) as { version: { id: string } };
    const published = await owner(`/profile-versions/${newVersion.version.id}/publish`, tokens.admin, {
      method: "POST",
    });
    expect(published.status, await published.clone().text()).toBe(200);
    // Published but not bound: the key still maps with the first version, and its docs say so.
    expect(await paths()).toEqual(["addr", "mail", "name", "tel"]);

    const bound = await owner(`/keys/${key.id}`, tokens.admin, {
      method: "PATCH",
      body: JSON.stringify({ leadProfileVersionId: newVersion.version.id }),
    });
    expect(bound.status).toBe(200);
    const docs = await docsOf(key.id);
    expect(docs.operations[0]?.fields.map((f) => f.path).sort()).toEqual([
      "person.address",
      "person.email",
      "person.fullName",
      "person.phone",
    ]);
    expect(docs.operations[0]?.profile?.version).toBe(2);
    expect(docs.operations[0]?.example).toEqual({ name: "nested", body: payload2 });
  });
});

describe("posting docs of a key without a profile (D-325)", () => {
  it("describe the canonical body under the Inbound API's own names, with an example the record's schema takes", async () => {
    const docs = await docsOf(canonical.id);
    const [lead, appointment] = docs.operations;
    expect(lead?.profile).toBeNull();
    expect(lead?.fields.map((f) => [f.path, f.need])).toEqual([
      ["fullName", "required"],
      ["email", "required"],
      ["phone", "required"],
      ["address", "required"],
      ["smsConsent", "optional"],
    ]);
    expect(leadSchema.safeParse(lead?.example?.body).success).toBe(true);
    expect(appointment?.kind).toBe("appointment");
    expect(appointment?.fields.map((f) => f.path)).toEqual([
      "leadId",
      "projectId",
      "startsAt",
      "endsAt",
      "notes",
      "idempotencyKey",
    ]);
    expect(appointmentSchema.safeParse(appointment?.example?.body).success).toBe(true);
    // What the docs show is what intake takes: the example posted with the key is accepted.
    const res = await postJson(`${t.url}/api/inbound/leads`, lead?.example?.body, { "x-api-key": canonical.key });
    expect(res.status).toBe(202);
  });
});

describe("§7: posting docs are the company's own (D-325)", () => {
  it("answer another company's key 404, on both routes, as an unknown one", async () => {
    for (const suffix of ["posting-docs", "posting-docs/page"]) {
      const mine = await owner(`/keys/${homequote.id}/${suffix}`, tokens.admin);
      expect(mine.status).toBe(200);
      const theirs = await owner(`/keys/${homequote.id}/${suffix}`, tokens.rival);
      expect(theirs.status).toBe(404);
      const unknown = await owner(`/keys/key_nosuchkey/${suffix}`, tokens.rival);
      expect(unknown.status).toBe(404);
      expect(await theirs.json()).toMatchObject({ code: "not_found", error: "not found" });
    }
  });

  it("answer a revoked key 409, and a viewer may read them", async () => {
    const key = await acme.issueKey({ name: "Gone" });
    expect((await owner(`/keys/${key.id}/posting-docs`, tokens.viewer)).status).toBe(200);
    await owner(`/keys/${key.id}/revoke`, tokens.admin, { method: "POST" });
    const res = await owner(`/keys/${key.id}/posting-docs`, tokens.viewer);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "conflict" });
  });
});

describe("the page the owner sends to the vendor (D-325)", () => {
  it("is one HTML document with no script, and nothing of the key's secret or of the company's other data", async () => {
    const res = await owner(`/keys/${homequote.id}/posting-docs/page`, tokens.viewer);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await res.text();
    // The positive control: what the vendor needs is there.
    for (const wanted of [
      "https://gateway.example.test/api/inbound/leads",
      "x-api-key",
      "contact.email",
      "contact.phones[].number[0]",
      "429",
      "retry-after",
      "60 per minute",
    ]) {
      expect(page).toContain(wanted);
    }
    expect(page).not.toMatch(/<script|src=|href=/i);
    const profileName = (await t.gateway.ctx.profiles.profilesOf(acme.company.id))[0]?.name ?? "";
    for (const secret of [
      homequote.key.split(".")[1] ?? "",
      acme.credential.id,
      canonical.id,
      "Canonical vendor",
      rivalKey.id,
      rivalKey.name,
      "Rival Roofing",
      acme.company.id,
      acme.email,
      profileName,
    ]) {
      expect(secret.length).toBeGreaterThan(2);
      expect(page).not.toContain(secret);
    }
  });

  it("escapes what others wrote: a key's name and a sample's payload are text, never markup", async () => {
    const key = await acme.issueKey({ name: `<img src=x onerror="alert(1)">` });
    const page = await (await owner(`/keys/${key.id}/posting-docs/page`, tokens.viewer)).text();
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(page).not.toContain("<img");
  });
});
