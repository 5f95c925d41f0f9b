import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { createOwner } from "../../../src/gateway/tenants/create-owner.js";
import { type Rig, type RigCompany, startRig } from "../../helpers/forwarding.js";
import { json, postJson } from "../../helpers/gateway.js";

const PRESETS = new URL("../../../presets", import.meta.url).pathname;
const PASSWORD = "held payloads test password";
const API_KEY = "angi-held-remap-key-0001";

/** Angi's documented instant booking (presets/angi/samples/02-instant-booking.json), as a JSON object. */
const BOOKING = JSON.parse(
  (JSON.parse(readFileSync(`${PRESETS}/angi/samples/02-instant-booking.json`, "utf8")) as { request: { body: string } })
    .request.body,
) as Record<string, unknown>;

/** A booking whose e-mail came under another name: the preset's profile finds none, so §2.7's lead cannot be made. */
function misnamed(n: number) {
  const { email, ...rest } = BOOKING;
  return {
    ...rest,
    emailAddress: email,
    leadOid: 900_000 + n,
    address: `${n} Held Street`,
    appointment: { ...(BOOKING.appointment as object), appointmentOid: 7_000 + n },
  };
}

let rig: Rig;
let company: RigCompany;
let token: string;
let hookUrl: string;
let connectionId: string;
let profileId: string;
let fixedVersionId: string;

const owner = (path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${rig.url}/owner/v1${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

async function postHook(body: unknown): Promise<void> {
  const res = await postJson(hookUrl, body, { "x-api-key": API_KEY });
  // Store first, map after: the vendor is answered as it expects whatever the profile makes of its payload.
  expect(res.status).toBe(200);
}

async function heldRows() {
  const page = await json(await owner(`/submissions?connectionId=${connectionId}&status=held`));
  return page.submissions as { submissionId: string; heldReason: string | null; status: string; kind: string }[];
}

const submission = (id: string) => rig.gateway.ctx.submissions.get(id);

beforeAll(async () => {
  rig = await startRig({ perKey: 60, perCompany: 300, egress: 600, windowMs: 60_000, presetsDir: PRESETS });
  company = await rig.addCompany("Held Payloads");
  const { ctx } = rig.gateway;
  const companyId = company.gatewayCompanyId;
  const email = `admin-${randomBytes(3).toString("hex")}@held.test`;
  await createOwner({ ctx, input: { companyId, email, name: "Admin", role: "admin", password: PASSWORD } });
  const session = await postJson(`${rig.url}/owner/v1/sessions`, { email, password: PASSWORD });
  const cookie = String(session.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(session)).csrfToken);
  const made = await postJson(`${rig.url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": csrf });
  token = String((await json(made)).token);
  const connection = await createConnection({
    ctx,
    companyId,
    input: { name: "Angi", preset: "angi", secrets: { apiKey: API_KEY } },
  });
  hookUrl = connection.hookUrl;
  connectionId = connection.id;
  // The fix: the profile also reads the e-mail's other name. Saved as the connection's profile's v2, with its samples.
  const key = await ctx.vendorKeys.get(connection.vendorKeyId);
  const v1 = await ctx.profiles.getVersionOfCompany(key?.appointmentProfileVersionId ?? "", companyId);
  if (!v1) throw new Error("the connection's profile version is missing");
  profileId = v1.profileId;
  const expression = v1.expression.replace(
    '"email": $normalizeEmail(email)',
    '"email": $normalizeEmail($default(email, emailAddress))',
  );
  expect(expression).not.toBe(v1.expression);
  const saved = await json(
    await owner(`/profiles/${profileId}/versions`, { method: "POST", body: { expression, samples: v1.samples } }),
  );
  if (!saved.version) throw new Error(JSON.stringify(saved));
  fixedVersionId = String((saved.version as { id: string }).id);
  expect((await owner(`/profile-versions/${fixedVersionId}/publish`, { method: "POST" })).status).toBe(200);
}, 60_000);
afterAll(() => rig?.close());

describe("held payloads: mapped again after a profile fix (docs/connections.md, D-308)", () => {
  let first = "";
  let second = "";

  it("holds a payload its profile cannot map, with the reason, in the log filtered by connection and status", async () => {
    await postHook(misnamed(1));
    await postHook(misnamed(2));
    const held = await heldRows();
    expect(held).toHaveLength(2);
    for (const row of held) expect(row.heldReason).toMatch(/email/);
    [second = "", first = ""] = held.map((row) => row.submissionId);
  });

  it("makes the held row the booking's lead and its appointment a new row chained on it, both forwarded", async () => {
    const res = await owner("/dead-letter/redrive", {
      method: "POST",
      body: { status: "held", submissionIds: [first], profileVersionId: fixedVersionId },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ redriven: 2, remapped: 1, created: 1, skipped: [] });
    const lead = await submission(first);
    expect(lead).toMatchObject({
      kind: "lead",
      heldReason: null,
      vendorRecordId: "900001",
      idempotencyKey: "hook:900001",
      profileVersionId: fixedVersionId,
      connectionId,
    });
    expect(lead?.canonicalBody?.email).toBe("fancy.nancy@edify.com");
    const page = await json(await owner(`/submissions?connectionId=${connectionId}&kind=appointment`));
    const [appointment] = page.submissions as { submissionId: string }[];
    const visit = await submission(appointment?.submissionId ?? "");
    expect(visit).toMatchObject({ vendorRecordId: "7001", idempotencyKey: "hook:7001" });
    expect(visit?.canonicalBody?.leadId).toBe(first);
    // The platform takes both: the appointment once its lead is there (docs/forwarding.md).
    await expect.poll(async () => (await submission(first))?.status, { timeout: 15_000 }).toBe("forwarded");
    await expect.poll(async () => (await submission(visit?.id ?? ""))?.status, { timeout: 15_000 }).toBe("forwarded");
    expect((await submission(visit?.id ?? ""))?.result).toMatchObject({
      appointmentId: expect.stringMatching(/^apt_/),
    });
    // Only the other one is still held (positive control for what follows).
    expect((await heldRows()).map((row) => row.submissionId)).toEqual([second]);
  });

  it("keeps a payload held with the new reason when the version named still cannot map it", async () => {
    const { emailAddress: _dropped, ...noEmail } = misnamed(3);
    await postHook(noEmail);
    const third = (await heldRows()).find((row) => row.submissionId !== second)?.submissionId ?? "";
    const before = await submission(third);
    const res = await json(
      await owner("/dead-letter/redrive", {
        method: "POST",
        body: { status: "held", submissionIds: [third], profileVersionId: fixedVersionId },
      }),
    );
    expect(res).toMatchObject({ redriven: 0, remapped: 0, created: 0 });
    expect(res.skipped).toEqual([{ submissionId: third, reason: expect.stringMatching(/^still held: .*email/) }]);
    const after = await submission(third);
    expect(after).toMatchObject({ status: "held", kind: before?.kind, profileVersionId: fixedVersionId });
    expect(after?.heldReason).toMatch(/email/);
  });

  it("maps with the connection's current version when none is named, once the profile is rolled to the fix", async () => {
    const rolled = await owner(`/profiles/${profileId}/rollback`, {
      method: "POST",
      body: { versionId: fixedVersionId },
    });
    expect(rolled.status).toBe(200);
    const res = await json(
      await owner("/dead-letter/redrive", {
        method: "POST",
        body: { status: "held", filter: { connectionId } },
      }),
    );
    // The second booking is mapped; the third (no e-mail at all) stays held.
    expect(res).toMatchObject({ redriven: 2, remapped: 1, created: 1 });
    expect((res.skipped as { submissionId: string }[]).map((s) => s.submissionId)).not.toContain(second);
    await expect.poll(async () => (await submission(second))?.status, { timeout: 15_000 }).toBe("forwarded");
  });

  it("makes no second submission when the vendor sends a re-mapped payload again", async () => {
    const before = (await json(await owner(`/submissions?connectionId=${connectionId}&limit=50`))).submissions;
    await postHook(misnamed(1));
    const after = (await json(await owner(`/submissions?connectionId=${connectionId}&limit=50`))).submissions;
    expect(after).toHaveLength((before as unknown[]).length);
    // A second re-map finds nothing more to map (the third is held, and stays so).
    const again = await json(
      await owner("/dead-letter/redrive", { method: "POST", body: { status: "held", submissionIds: [first] } }),
    );
    expect(again).toEqual({ redriven: 0, remapped: 0, created: 0, skipped: [] });
  });
});
