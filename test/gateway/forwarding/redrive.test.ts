import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import {
  createProfile,
  publishProfileVersion,
  saveProfileVersion,
} from "../../../src/gateway/profiles-admin/profiles.js";
import { redriveSubmissions } from "../../../src/gateway/submissions/redrive.js";
import { lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { postJson } from "../../helpers/gateway.js";
import { attemptRows, submissionRow } from "../../helpers/store-reads.js";

describe("dead letter: redrive, re-mapped with another profile version", () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000 });
  });
  afterAll(() => rig.close());

  const row = (id: string) => submissionRow(rig.gateway, id);
  const settled = (id: string) =>
    until(async () => {
      const r = await row(id);
      return r && (r.status === "forwarded" || r.status === "failed") ? r : undefined;
    });

  it("fixes a profile, replays the failed submission with a new upstream key, and it is forwarded", async () => {
    const { ctx } = rig.gateway;
    const company = await rig.addCompany("Redrive", 1);
    const companyId = company.gatewayCompanyId;
    const vendorKeyId = (company.vendorKeys[0] ?? "").split(".")[0] ?? "";
    const leadRes = await postJson(`${rig.url}/api/inbound/leads`, lead(), {
      "x-api-key": company.vendorKeys[0] ?? "",
    });
    const leadRow = await settled(((await leadRes.json()) as { submissionId: string }).submissionId);
    const leadId = (leadRow.result as { leadId: string }).leadId;

    // Version 1 reads the lead id from the wrong field: the platform answers 404 and it is dead-lettered.
    const profile = await createProfile({ ctx, companyId, input: { name: "booking", kind: "appointment" } });
    const sample = {
      ref: "lead_x",
      customer: "lead_x",
      from: "2026-12-01T15:00:00Z",
      to: "2026-12-01T16:00:00Z",
      key: "bk-000001",
    };
    const expression = (field: string) =>
      `{ "leadId": ${field}, "startsAt": from, "endsAt": to, "idempotencyKey": key }`;
    const publish = async (field: string) => {
      const saved = await saveProfileVersion({
        ctx,
        companyId,
        profileId: profile.id,
        input: {
          expression: expression(field),
          samples: [
            {
              name: "s",
              payload: sample,
              expect: {
                body: { leadId: "lead_x", startsAt: sample.from, endsAt: sample.to, idempotencyKey: "bk-000001" },
              },
            },
          ],
        },
      });
      return publishProfileVersion({ ctx, companyId, versionId: saved.version.id });
    };
    const v1 = await publish("ref");
    await updateVendorKey({ ctx, companyId, keyId: vendorKeyId, input: { appointmentProfileVersionId: v1.id } });
    const native = { ref: "lead_wrong", customer: leadId, from: sample.from, to: sample.to, key: "bk-000002" };
    const res = await postJson(`${rig.url}/api/inbound/appointments`, native, {
      "x-api-key": company.vendorKeys[0] ?? "",
    });
    const { submissionId } = (await res.json()) as { submissionId: string };
    const failed = await settled(submissionId);
    expect(failed).toMatchObject({ status: "failed", upstreamStatus: 404 });

    const v2 = await publish("customer");
    const result = await redriveSubmissions({
      ctx,
      companyId,
      input: { submissionIds: [submissionId], profileVersionId: v2.id },
    });
    expect(result).toEqual({ redriven: 1, remapped: 1, created: 0, skipped: [] });
    const forwarded = await until(async () => {
      const r = await row(submissionId);
      return r?.status === "forwarded" ? r : undefined;
    });
    expect(forwarded).toMatchObject({ profileVersionId: v2.id, upstreamKeyGeneration: 1, attempts: 1 });
    const keys = await attemptRows(rig.gateway, [submissionId]);
    expect(keys).toHaveLength(2);
    expect(keys[0]?.idempotencyKey).not.toBe(keys[1]?.idempotencyKey);
  });

  it("keeps the upstream key when the body did not change, and refuses a redrive with no selection", async () => {
    const { ctx } = rig.gateway;
    const company = await rig.addCompany("Unchanged", 1);
    const companyId = company.gatewayCompanyId;
    const booking = {
      leadId: "lead_missing",
      startsAt: "2026-12-01T15:00:00Z",
      endsAt: "2026-12-01T16:00:00Z",
      idempotencyKey: "same-0001",
    };
    const res = await postJson(`${rig.url}/api/inbound/appointments`, booking, {
      "x-api-key": company.vendorKeys[0] ?? "",
    });
    const { submissionId } = (await res.json()) as { submissionId: string };
    const before = await settled(submissionId);
    expect(before.status).toBe("failed");
    await expect(redriveSubmissions({ ctx, companyId, input: {} })).rejects.toThrow(/submissionIds/);
    expect(await redriveSubmissions({ ctx, companyId, input: { all: true } })).toMatchObject({
      redriven: 1,
      remapped: 0,
    });
    const after = await settled(submissionId);
    expect(after.upstreamIdempotencyKey).toBe(before.upstreamIdempotencyKey);
    expect(after.upstreamKeyGeneration).toBe(0);
  });
});
