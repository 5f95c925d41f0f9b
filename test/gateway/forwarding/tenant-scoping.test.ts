import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import {
  createProfile,
  publishProfileVersion,
  saveProfileVersion,
} from "../../../src/gateway/profiles-admin/profiles.js";
import { submissionRow } from "../../../src/gateway/storage/submissions/index.js";
import { redriveSubmissions } from "../../../src/gateway/submissions/redrive.js";
import { newId } from "../../../src/ids.js";
import { lead, type Rig, type RigCompany, startRig, until } from "../../helpers/forwarding.js";
import { postJson } from "../../helpers/gateway.js";
import { attemptRows, submissionRow as readRow } from "../../helpers/store-reads.js";

/**
 * §5.5 / §7 tenant isolation of appointment chaining (docs/forwarding.md): an appointment's `leadId: "sub_…"` is
 * followed only to a lead submission of its own vendor key, at forward time and on a redrive's re-map, never by the
 * id alone. Two companies on one gateway; the other company's lead is a 404 to the first, whatever its state.
 */
describe("§5.5 appointment chaining stays inside the tenant", () => {
  let rig: Rig;
  let acme: RigCompany;
  let rival: RigCompany;
  beforeAll(async () => {
    rig = await startRig({ perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000 });
    acme = await rig.addCompany("Acme", 1);
    rival = await rig.addCompany("Rival", 1);
  });
  afterAll(() => rig.close());

  const row = (id: string) => readRow(rig.gateway, id);
  const attempts = (id: string) => attemptRows(rig.gateway, [id]);
  const keyId = (company: RigCompany) => (company.vendorKeys[0] ?? "").split(".")[0] ?? "";
  const settled = (id: string) =>
    until(async () => {
      const r = await row(id);
      return r && (r.status === "forwarded" || r.status === "failed") ? r : undefined;
    });

  /**
   * A lead submission of Rival's, in the state given, written as forwarding would have left it (a queued one is not
   * handed to forwarding: it stays queued).
   */
  const rivalLead = async (status: "failed" | "queued") => {
    const now = new Date();
    const lead = submissionRow({
      id: newId("sub", now.getTime()),
      companyId: rival.gatewayCompanyId,
      vendorKeyId: keyId(rival),
      credentialId: rival.credentials[0]?.id ?? "",
      kind: "lead",
      status,
      rawPayload: JSON.stringify({ n: 1 }),
      canonicalBody: { fullName: "Seed Person", email: "seed@example.com" },
      payloadDigest: null,
      createdAt: now.toISOString(),
    });
    const { submissions } = rig.gateway.ctx;
    await submissions.insert(lead);
    // Intake's insert writes what an accept has; forwarding's settlement writes the rest.
    if (status === "failed") {
      const failed = { attempts: 1, upstreamStatus: 400, lastError: "upstream 400: seeded failure" };
      await submissions.settle(lead.id, now.getTime(), failed);
    }
    return lead.id;
  };

  /** An appointment of Acme's naming `leadId`, committed and handed to forwarding as intake would. */
  const acmeAppointment = async (leadId: string) => {
    const now = new Date();
    const body = {
      leadId,
      startsAt: "2026-12-01T15:00:00Z",
      endsAt: "2026-12-01T16:00:00Z",
      idempotencyKey: `tenant-${now.getTime()}-${Math.random()}`,
    };
    const appointment = submissionRow({
      id: newId("sub", now.getTime()),
      companyId: acme.gatewayCompanyId,
      vendorKeyId: keyId(acme),
      credentialId: acme.credentials[0]?.id ?? "",
      kind: "appointment",
      status: "queued",
      rawPayload: JSON.stringify(body),
      canonicalBody: body,
      payloadDigest: null,
      idempotencyKey: body.idempotencyKey,
      createdAt: now.toISOString(),
    });
    await rig.gateway.ctx.submissions.insert(appointment);
    rig.gateway.ctx.running.forwarding?.notify(appointment);
    return appointment.id;
  };

  it("fails at forward time an appointment naming another company's failed lead, without its error", async () => {
    const foreign = await rivalLead("failed");
    const id = await acmeAppointment(foreign);
    const failed = await settled(id);
    expect(failed).toMatchObject({ status: "failed", lastError: `leadId: no lead submission ${foreign} of this key` });
    expect(failed.lastError).not.toContain("seeded failure");
    expect((await row(foreign))?.lastError).toContain("seeded failure");
    expect(await attempts(id)).toEqual([]);
  });

  it("does not hold an appointment for another company's unsettled lead", async () => {
    const foreign = await rivalLead("queued");
    const id = await acmeAppointment(foreign);
    expect(await settled(id)).toMatchObject({ status: "failed", waitingReason: null });
    expect((await row(foreign))?.status).toBe("queued");
  });

  it("still chains an appointment to its own key's lead (the positive control)", async () => {
    const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": acme.vendorKeys[0] ?? "" });
    const own = String(((await res.json()) as { submissionId: string }).submissionId);
    const id = await acmeAppointment(own);
    expect(await settled(id)).toMatchObject({ status: "forwarded" });
    expect(await attempts(id)).toHaveLength(1);
  });

  it("refuses on a redrive's re-map a reference to another company's lead, as intake does", async () => {
    const { ctx } = rig.gateway;
    const companyId = acme.gatewayCompanyId;
    const foreign = await rivalLead("failed");
    // Version 1 maps `ref`; version 2 maps `other`, a field intake never checked.
    const profile = await createProfile({ ctx, companyId, input: { name: "booking", kind: "appointment" } });
    const sample = { ref: "lead_x", other: "lead_x", from: "2026-12-01T15:00:00Z", to: "2026-12-01T16:00:00Z" };
    const publish = async (field: string) => {
      const expression = `{ "leadId": ${field}, "startsAt": from, "endsAt": to, "idempotencyKey": "tenant-redrive-1" }`;
      const body = { leadId: "lead_x", startsAt: sample.from, endsAt: sample.to, idempotencyKey: "tenant-redrive-1" };
      const saved = await saveProfileVersion({
        ctx,
        companyId,
        profileId: profile.id,
        input: { expression, samples: [{ name: "s", payload: sample, expect: { body } }] },
      });
      return publishProfileVersion({ ctx, companyId, versionId: saved.version.id });
    };
    const v1 = await publish("ref");
    await updateVendorKey({ ctx, companyId, keyId: keyId(acme), input: { appointmentProfileVersionId: v1.id } });
    const native = { ...sample, ref: "lead_missing", other: foreign };
    const res = await postJson(`${rig.url}/api/inbound/appointments`, native, {
      "x-api-key": acme.vendorKeys[0] ?? "",
    });
    expect(res.status).toBe(202);
    const id = String(((await res.json()) as { submissionId: string }).submissionId);
    expect(await settled(id)).toMatchObject({ status: "failed", upstreamStatus: 404 });

    const v2 = await publish("other");
    const result = await redriveSubmissions({
      ctx,
      companyId,
      input: { submissionIds: [id], profileVersionId: v2.id },
    });
    expect(result).toEqual({
      redriven: 0,
      remapped: 0,
      created: 0,
      skipped: [{ submissionId: id, reason: "leadId: no such lead submission for this key" }],
    });
    expect(await row(id)).toMatchObject({ status: "failed", profileVersionId: v1.id });
  });
});
