import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { lead, type Rig, startRig } from "../helpers/forwarding.js";
import { json, OWNER_PASSWORD, postJson } from "../helpers/gateway.js";

/**
 * Resuming a paused upstream credential (docs/decisions.md D-236): forwarding pauses a credential the platform refuses
 * (401/403) and its submissions wait; the owner sees why, and resumes it with its current value, which queues what
 * waited again, as a rotation does.
 */
let rig: Rig;

async function bearer(companyId: string, role: "admin" | "viewer"): Promise<string> {
  const email = `${role}-${randomBytes(3).toString("hex")}@resume.test`;
  await createOwner({
    ctx: rig.gateway.ctx,
    input: { companyId, email, name: role, role, password: OWNER_PASSWORD },
  });
  const signIn = await postJson(`${rig.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(signIn)).csrfToken);
  const created = await postJson(`${rig.url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": csrf });
  return String((await json(created)).token);
}

const owner = (token: string, path: string, method = "GET") =>
  fetch(`${rig.url}/owner/v1${path}`, { method, headers: { authorization: `Bearer ${token}` } });

async function credentialOf(token: string, id: string): Promise<Record<string, unknown> | undefined> {
  const { credentials } = (await (await owner(token, "/credentials")).json()) as {
    credentials: Record<string, unknown>[];
  };
  return credentials.find((c) => c.id === id);
}

async function submit(key: string): Promise<string> {
  const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key });
  expect(res.status).toBe(202);
  return String((await json(res)).submissionId);
}

const statusOf = async (id: string) => (await rig.gateway.ctx.submissions.get(id))?.status;

beforeAll(async () => {
  rig = await startRig({ perKey: 60, perCompany: 300, egress: 600, windowMs: 60_000, retry: { maxAttempts: 2 } });
});
afterAll(() => rig?.close());

describe("a paused credential in the owner API (D-236)", () => {
  it("lists a credential the platform refused as paused, with the reason", async () => {
    const company = await rig.addCompany("Refused");
    const credential = company.credentials[0];
    if (!credential) throw new Error("no credential");
    const admin = await bearer(company.gatewayCompanyId, "admin");
    rig.sandbox.admin.revokeKey(credential.upstreamKey.split(".")[0] ?? "");
    const id = await submit(company.vendorKeys[0] ?? "");
    await expect.poll(() => statusOf(id)).toBe("waiting");
    expect(await credentialOf(admin, credential.id)).toMatchObject({
      status: "paused",
      pausedReason: expect.stringMatching(/^upstream 401/),
    });
    // Resumed while the platform still refuses the key: forwarding tries again and pauses it again.
    const resumed = await owner(admin, `/credentials/${credential.id}/resume`, "POST");
    expect(resumed.status).toBe(200);
    expect(await json(resumed)).toMatchObject({ id: credential.id, status: "active", pausedReason: null });
    await expect.poll(async () => (await rig.gateway.ctx.submissions.attemptsOf(id)).length).toBe(2);
    await expect.poll(async () => (await credentialOf(admin, credential.id))?.status).toBe("paused");
    expect(await statusOf(id)).toBe("waiting");
  });

  it("resumes a credential the platform takes again: what waited is forwarded", async () => {
    const company = await rig.addCompany("Taken again");
    const credential = company.credentials[0];
    if (!credential) throw new Error("no credential");
    const admin = await bearer(company.gatewayCompanyId, "admin");
    const { ctx } = rig.gateway;
    // What forwarding's 401 leaves behind (forwarding/attempt.ts), for a key the platform accepts again since.
    ctx.credentials.pause(credential.id, "upstream 401: key disabled", 1);
    const ids = [await submit(company.vendorKeys[0] ?? ""), await submit(company.vendorKeys[0] ?? "")];
    await expect.poll(() => Promise.all(ids.map(statusOf))).toEqual(["waiting", "waiting"]);
    expect(await credentialOf(admin, credential.id)).toMatchObject({
      status: "paused",
      pausedReason: "upstream 401: key disabled",
    });
    expect((await owner(admin, `/credentials/${credential.id}/resume`, "POST")).status).toBe(200);
    await expect.poll(() => Promise.all(ids.map(statusOf)), { timeout: 15_000 }).toEqual(["forwarded", "forwarded"]);
    expect(await credentialOf(admin, credential.id)).toMatchObject({ status: "active", version: 1 });
  });

  it("refuses a viewer (403), an active credential (409) and another company's (404)", async () => {
    const company = await rig.addCompany("Guarded");
    const rival = await rig.addCompany("Guarded rival");
    const credential = company.credentials[0];
    if (!credential) throw new Error("no credential");
    rig.gateway.ctx.credentials.pause(credential.id, "upstream 403: forbidden", 1);
    const viewer = await bearer(company.gatewayCompanyId, "viewer");
    const admin = await bearer(company.gatewayCompanyId, "admin");
    const stranger = await bearer(rival.gatewayCompanyId, "admin");
    expect((await owner(viewer, `/credentials/${credential.id}/resume`, "POST")).status).toBe(403);
    expect((await owner(stranger, `/credentials/${credential.id}/resume`, "POST")).status).toBe(404);
    expect((await credentialOf(viewer, credential.id))?.status).toBe("paused");
    // Positive control: the owner's admin may.
    expect((await owner(admin, `/credentials/${credential.id}/resume`, "POST")).status).toBe(200);
    const again = await owner(admin, `/credentials/${credential.id}/resume`, "POST");
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ error: "the credential is not paused" });
  });
});
