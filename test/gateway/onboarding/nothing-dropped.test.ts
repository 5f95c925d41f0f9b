import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { profileCommand } from "../../../src/cli/profile.js";
import { createVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import {
  createProfile,
  publishProfileVersion,
  saveProfileVersion,
} from "../../../src/gateway/profiles-admin/profiles.js";
import { erasePerson } from "../../../src/gateway/submissions/retention.js";
import { createOwner } from "../../../src/gateway/tenants/create-owner.js";
import { type Rig, startRig } from "../../helpers/forwarding.js";
import { json, OWNER_PASSWORD, postJson } from "../../helpers/gateway.js";

// Nothing dropped silently, every submission findable (docs/profiles.md, "Extras and dropped keys"; D-318..D-322).

/** A vendor's lead with details the canonical lead (§2.7) has no field for. */
const VENDOR_LEAD = {
  customer: { first: "Grace", last: "Hopper", mail: "Grace.Hopper@Example.com", tel: "+1 (512) 555-0199" },
  site: "1 Navy Way, Arlington, VA 22201",
  service: "Roof repair",
  answers: [{ q: "Roof age", a: "20 years" }],
  certUrl: "https://cert.example/abc",
};
const DROPPING = `{
  "fullName": customer.first & " " & customer.last, "email": customer.mail, "phone": customer.tel, "address": site,
  "service": service, "notes": answers[0].a
}`;
const KEEPING = `{
  "fullName": customer.first & " " & customer.last, "email": customer.mail, "phone": customer.tel, "address": site,
  "extras": { "service": service, "answers": answers, "consentCertificate": certUrl }
}`;
const EXPECTED_BODY = {
  fullName: "Grace Hopper",
  email: "Grace.Hopper@Example.com",
  phone: "+1 (512) 555-0199",
  address: "1 Navy Way, Arlington, VA 22201",
};

/** Every body the platform's Inbound API received, through a spy in front of the sandbox. */
const received: { path: string; body: Record<string, unknown> }[] = [];
async function spy(target: string): Promise<string> {
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (text) received.push({ path: req.url ?? "", body: JSON.parse(text) as Record<string, unknown> });
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !["host", "content-length", "connection"].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(`${target}${req.url}`, { method: req.method ?? "POST", headers, body: text || null });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  spies.push(server);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}
const spies: ReturnType<typeof createServer>[] = [];

let rig: Rig;
let companyId: string;
let credentialId: string;
const tokens = { admin: "", viewer: "" };

async function bearer(email: string): Promise<string> {
  const signIn = await postJson(`${rig.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = await json(signIn);
  const res = await postJson(
    `${rig.url}/owner/v1/tokens`,
    { name: "t" },
    { cookie, "x-csrf-token": String(csrfToken) },
  );
  return String((await json(res)).token);
}

async function api(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${rig.url}/owner/v1${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  rig = await startRig({ perKey: 100, perCompany: 100, egress: 100, windowMs: 1_000, upstream: spy });
  const company = await rig.addCompany("Dropless", 1);
  companyId = company.gatewayCompanyId;
  credentialId = company.credentials[0]?.id ?? "";
  const ctx = rig.gateway.ctx;
  for (const role of ["admin", "viewer"] as const) {
    const email = `${role}@dropless.test`;
    await createOwner({ ctx, input: { companyId, email, name: role, role, password: OWNER_PASSWORD } });
    tokens[role] = await bearer(email);
  }
}, 30_000);
afterAll(async () => {
  await rig.close();
  for (const server of spies) server.close();
});

describe("a key the canonical body does not have is warned of, per key (D-321, §2.7)", () => {
  it("the preview, the test endpoint and publishing name `service` and `notes`; a profile without them gets none", async () => {
    const preview = await api("/profiles/preview", tokens.viewer, {
      method: "POST",
      body: { kind: "lead", expression: DROPPING, payload: VENDOR_LEAD },
    });
    expect(preview.body).toMatchObject({ ok: true, body: EXPECTED_BODY, dropped: ["service", "notes"] });
    expect(preview.body.warnings).toEqual([
      { key: "service", message: expect.stringContaining('no field "service"') },
      { key: "notes", message: expect.stringContaining('no field "notes"') },
    ]);
    // Positive control: the profile that keeps them in extras is warned of nothing.
    const kept = await api("/profiles/preview", tokens.viewer, {
      method: "POST",
      body: { kind: "lead", expression: KEEPING, payload: VENDOR_LEAD },
    });
    expect(kept.body).toMatchObject({ ok: true, body: EXPECTED_BODY });
    expect(kept.body.warnings).toBeUndefined();
    expect(kept.body.extras).toEqual({
      service: "Roof repair",
      answers: VENDOR_LEAD.answers,
      consentCertificate: VENDOR_LEAD.certUrl,
    });

    const profile = await api("/profiles", tokens.admin, { method: "POST", body: { name: "dropping", kind: "lead" } });
    const samples = [{ name: "vendor lead", payload: VENDOR_LEAD, expect: { body: EXPECTED_BODY } }];
    const tested = await api(`/profiles/${profile.body.id}/test`, tokens.viewer, {
      method: "POST",
      body: { expression: DROPPING, samples },
    });
    expect(tested.body).toMatchObject({ passed: true });
    expect(tested.body.warnings).toEqual([
      { sample: "vendor lead", key: "service", message: expect.any(String) },
      { sample: "vendor lead", key: "notes", message: expect.any(String) },
    ]);
    const saved = await api(`/profiles/${profile.body.id}/versions`, tokens.admin, {
      method: "POST",
      body: { expression: DROPPING, samples },
    });
    const versionId = String((saved.body.version as { id: string }).id);
    const published = await api(`/profile-versions/${versionId}/publish`, tokens.admin, { method: "POST" });
    expect(published.body).toMatchObject({ status: "published" });
    expect((published.body.warnings as { key: string }[]).map((w) => w.key)).toEqual(["service", "notes"]);
  });

  it("`profile test` prints them per sample and still passes; `profile preview` prints them on stderr", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dropless-"));
    try {
      await writeFile(join(dir, "profile.json"), JSON.stringify({ name: "dropping", kind: "lead" }));
      await writeFile(join(dir, "profile.jsonata"), DROPPING);
      await mkdir(join(dir, "samples"));
      await writeFile(
        join(dir, "samples", "01-vendor-lead.json"),
        JSON.stringify({ name: "vendor lead", payload: VENDOR_LEAD, expect: { body: EXPECTED_BODY } }),
      );
      await writeFile(join(dir, "payload.json"), JSON.stringify(VENDOR_LEAD));
      const out = { stdout: "", stderr: "" };
      const io = {
        stdout: (text: string) => {
          out.stdout += text;
        },
        stderr: (text: string) => {
          out.stderr += text;
        },
      };
      expect(await profileCommand(["test", dir], io)).toBe(0);
      expect(out.stdout).toContain("✓ vendor lead");
      expect(out.stdout).toContain('! vendor lead: service: the canonical body has no field "service"');
      expect(out.stdout).toContain('! vendor lead: notes: the canonical body has no field "notes"');
      expect(await profileCommand(["preview", dir, join(dir, "payload.json")], io)).toBe(0);
      expect(out.stderr).toContain("warning: service:");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("extras: kept with the submission, shown and found, never sent upstream, erased with it (D-320, D-318, D-319)", () => {
  it("the platform receives the canonical lead only; the log shows the person masked and the extras, and finds them", async () => {
    const ctx = rig.gateway.ctx;
    const profile = await createProfile({ ctx, companyId, input: { name: "keeping", kind: "lead" } });
    const saved = await saveProfileVersion({
      ctx,
      companyId,
      profileId: profile.id,
      input: { expression: KEEPING, samples: [{ name: "s", payload: VENDOR_LEAD, expect: { body: EXPECTED_BODY } }] },
    });
    await publishProfileVersion({ ctx, companyId, versionId: saved.version.id });
    const key = await createVendorKey({
      ctx,
      companyId,
      input: {
        name: "extras",
        partnerType: "lead_source",
        scopes: ["leads:write"],
        credentialId,
        leadProfileVersionId: saved.version.id,
      },
    });
    const accepted = await json(await postJson(`${rig.url}/api/inbound/leads`, VENDOR_LEAD, { "x-api-key": key.key }));
    const submissionId = String(accepted.submissionId);
    await expect
      .poll(async () => (await api(`/submissions/${submissionId}`, tokens.viewer)).body.status, { timeout: 20_000 })
      .toBe("forwarded");

    // Positive control: the spy saw the lead go out; what went out is exactly the canonical body.
    const sent = received.filter((r) => r.path === "/api/inbound/leads" && r.body.fullName === "Grace Hopper");
    expect(sent.map((r) => r.body)).toEqual([EXPECTED_BODY]);
    expect(JSON.stringify(received)).not.toContain("Roof repair");

    const extras = { service: "Roof repair", answers: VENDOR_LEAD.answers, consentCertificate: VENDOR_LEAD.certUrl };
    const row = { submissionId, person: { name: "Grace Hopper", email: "G***@Example.com", phone: "***0199" }, extras };
    for (const query of [
      "email=%20grace.hopper%40example.com",
      "phone=%2B1%20(512)%20555-0199",
      "phone=15125550199",
      "extras=ROOF%20REP",
    ]) {
      const page = await api(`/submissions?${query}`, tokens.viewer);
      expect({ query, rows: page.body.submissions }).toMatchObject({ query, rows: [row] });
    }
    // Absence with its control above: another person's e-mail and text nobody sent find nothing.
    expect((await api("/submissions?email=ada%40example.com", tokens.viewer)).body.submissions).toEqual([]);
    expect((await api("/submissions?extras=plumbing", tokens.viewer)).body.submissions).toEqual([]);
    expect((await api(`/submissions/${submissionId}`, tokens.viewer)).body).toMatchObject({ extras });

    const erased = await erasePerson({ ctx, companyId, input: { email: "grace.hopper@example.com" } });
    expect(erased.erased).toBe(1);
    const after = await api(`/submissions/${submissionId}`, tokens.viewer);
    expect(after.body).toMatchObject({ extras: null, person: null, rawPayload: null, canonicalBody: null });
    expect((await api("/submissions?extras=roof", tokens.viewer)).body.submissions).toEqual([]);
  });

  it("an extras that is not an object is the profile's validation error on `extras`", async () => {
    const preview = await api("/profiles/preview", tokens.viewer, {
      method: "POST",
      body: {
        kind: "lead",
        expression: KEEPING.replace(/"extras": \{[^}]*\}/, '"extras": service'),
        payload: VENDOR_LEAD,
      },
    });
    expect(preview.body).toMatchObject({ ok: false, kind: "validation", field: "extras" });
  });
});

describe("§2.8: booking notes go to the appointment's notes, which the platform keeps", () => {
  it("a profile's notes reach the platform with the appointment", async () => {
    const ctx = rig.gateway.ctx;
    const expression = `{ "leadId": lead, "startsAt": from, "endsAt": to, "notes": comment, "idempotencyKey": ref }`;
    const lead = await json(
      await postJson(
        `${rig.url}/api/inbound/leads`,
        { ...EXPECTED_BODY, address: "2 Notes Road, Austin, TX 78701" },
        {
          "x-api-key": (
            await createVendorKey({
              ctx,
              companyId,
              input: { name: "l", partnerType: "lead_source", scopes: ["leads:write"], credentialId },
            })
          ).key,
        },
      ),
    );
    const booking = {
      lead: lead.submissionId,
      from: "2026-12-01T15:00:00Z",
      to: "2026-12-01T16:00:00Z",
      comment: "Gate code 1234",
      ref: "notes-booking-0001",
    };
    const profile = await createProfile({ ctx, companyId, input: { name: "booking", kind: "appointment" } });
    const saved = await saveProfileVersion({
      ctx,
      companyId,
      profileId: profile.id,
      input: {
        expression,
        samples: [
          {
            name: "s",
            payload: { ...booking, lead: "lead_x" },
            expect: {
              body: {
                leadId: "lead_x",
                startsAt: booking.from,
                endsAt: booking.to,
                notes: booking.comment,
                idempotencyKey: booking.ref,
              },
            },
          },
        ],
      },
    });
    await publishProfileVersion({ ctx, companyId, versionId: saved.version.id });
    const booker = await createVendorKey({
      ctx,
      companyId,
      input: {
        name: "b",
        partnerType: "booking_vendor",
        scopes: ["leads:write", "appointments:write"],
        credentialId,
        appointmentProfileVersionId: saved.version.id,
      },
    });
    expect(booker.id).toBeTruthy();
    // The booking names the lead by its submission; its key is not the lead's, so it names the platform's lead id.
    await expect
      .poll(async () => (await api(`/submissions/${lead.submissionId}`, tokens.viewer)).body.status, {
        timeout: 20_000,
      })
      .toBe("forwarded");
    const leadId = String(
      ((await api(`/submissions/${lead.submissionId}`, tokens.viewer)).body.result as { leadId: string }).leadId,
    );
    const accepted = await json(
      await postJson(`${rig.url}/api/inbound/appointments`, { ...booking, lead: leadId }, { "x-api-key": booker.key }),
    );
    await expect
      .poll(async () => (await api(`/submissions/${accepted.submissionId}`, tokens.viewer)).body.status, {
        timeout: 20_000,
      })
      .toBe("forwarded");
    const sent = received.filter((r) => r.path === "/api/inbound/appointments" && r.body.idempotencyKey !== undefined);
    expect(sent.at(-1)?.body).toMatchObject({ leadId, notes: "Gate code 1234" });
  });
});
