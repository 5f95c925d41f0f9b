import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Forwarder } from "../../../src/gateway/forwarding/forwarder.js";
import { submissionRow } from "../../../src/gateway/storage/submissions/index.js";
import { newId } from "../../../src/ids.js";
import { lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { postJson } from "../../helpers/gateway.js";
import { submissionRow as readRow } from "../../helpers/store-reads.js";

describe("crash recovery: appointments waiting for a lead", () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000 });
  });
  afterAll(() => rig.close());

  it("sends at start an appointment left waiting for a lead that an earlier process had already forwarded", async () => {
    const { ctx } = rig.gateway;
    const company = await rig.addCompany("Orphan", 1);
    const key = company.vendorKeys[0] ?? "";
    const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key });
    const { submissionId: leadSubmission } = (await res.json()) as { submissionId: string };
    const row = (id: string) => readRow(rig.gateway, id);
    await until(async () => (await row(leadSubmission))?.status === "forwarded");

    // What a crash between settling the lead and releasing its appointment used to leave behind.
    const orphan = submissionRow({
      id: newId("sub"),
      companyId: company.gatewayCompanyId,
      vendorKeyId: key.split(".")[0] ?? "",
      credentialId: company.credentials[0]?.id ?? "",
      kind: "appointment",
      status: "waiting",
      waitingReason: `waiting for lead submission ${leadSubmission}`,
      canonicalBody: {
        leadId: leadSubmission,
        startsAt: "2026-12-01T15:00:00Z",
        endsAt: "2026-12-01T16:00:00Z",
        idempotencyKey: "orphan-0001",
      },
      idempotencyKey: "orphan-0001",
      payloadDigest: "orphan",
      createdAt: new Date().toISOString(),
    });
    // Intake's insert writes what an accept has; the hold (forwarding) writes the wait.
    await ctx.submissions.insert(orphan);
    await ctx.submissions.settle(orphan.id, Date.now(), { waitingReason: orphan.waitingReason });
    expect(await row(orphan.id)).toMatchObject({ status: "waiting", waitingReason: orphan.waitingReason });

    const restarted = new Forwarder(ctx, { upstreamUrl: rig.sandbox.url });
    await restarted.start();
    try {
      const sent = await until(async () => {
        const r = await row(orphan.id);
        return r?.status === "forwarded" ? r : undefined;
      });
      expect(sent?.result).toMatchObject({ appointmentId: expect.stringMatching(/^apt_/) });
    } finally {
      await restarted.close(1_000);
    }
  });
});
