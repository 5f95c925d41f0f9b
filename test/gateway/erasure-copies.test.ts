import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setCaptureMode } from "../../src/gateway/captures/capture-mode.js";
import { createVendorKey } from "../../src/gateway/keys/vendor-keys.js";
import { createProfile, publishProfileVersion, saveProfileVersion } from "../../src/gateway/profiles-admin/profiles.js";
import { erasePerson } from "../../src/gateway/submissions/retention.js";
import { loadPlatformSecret } from "../../src/gateway/webhooks/platform/platform-secrets.js";
import { createSubscription } from "../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { type Rig, startRig, until } from "../helpers/forwarding.js";
import { postJson } from "../helpers/gateway.js";
import { sqlOf } from "../helpers/sqlite-of.js";
import { deliverToGateway, platformEnvelope } from "./webhooks/support.js";

/** A loopback port nothing listens on: an endpoint that never answers (connection refused, retried later). */
async function deadEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hooks`;
}

const PERSON = {
  fullName: "Zebediah Quixotewell",
  email: "zeb.quixotewell@example.com",
  phone: "+1 512-555-0187",
  address: "77 Erasure Lane, Austin, TX 78701",
};

describe("erasure of every copy (docs/decisions.md): the database files keep no trace of the person", () => {
  let rig: Rig;
  afterAll(() => rig.close());

  it("after a forwarded lead, a booking, a mapping failure, a captured payload and a platform event, none of the person is left", async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), "pg-erasure-")), "gateway.db");
    rig = await startRig({ perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000, databasePath });
    const { ctx } = rig.gateway;
    const company = await rig.addCompany("Erasure", 1);
    const companyId = company.gatewayCompanyId;
    const credentialId = company.credentials[0]?.id ?? "";
    const source = await createVendorKey({
      ctx,
      companyId,
      input: { name: "marketplace", partnerType: "lead_source", scopes: ["leads:write"], credentialId },
    });
    const booker = { id: (company.vendorKeys[0] ?? "").split(".")[0] ?? "", key: company.vendorKeys[0] ?? "" };
    // Both vendors subscribed at endpoints that never answer: their deliveries stay pending.
    const url = await deadEndpoint();
    await createSubscription({
      ctx,
      companyId,
      input: { vendorKeyId: source.id, url, events: ["submission.forwarded", "submission.failed"] },
    });
    await createSubscription({
      ctx,
      companyId,
      input: { vendorKeyId: booker.id, url, events: ["appointment.booked", "submission.failed"] },
    });
    const settled = (id: string) =>
      until(async () => {
        const row = await sqlOf(rig.gateway)
          .selectFrom("submissions")
          .selectAll()
          .where("id", "=", id)
          .executeTakeFirst();
        return row?.status === "forwarded" ? row : undefined;
      }, 20_000);
    const submit = async (path: string, key: string, body: unknown) => {
      const res = await postJson(`${rig.url}${path}`, body, { "x-api-key": key });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    // A lead, forwarded; an appointment booked for it (its confirmation carries the visit's name, phone, address).
    const lead = await submit("/api/inbound/leads", source.key, PERSON);
    const leadRow = await settled(String(lead.body.submissionId));
    const leadId = String(leadRow.result?.leadId);
    const booking = await submit("/api/inbound/appointments", booker.key, {
      leadId,
      startsAt: "2026-12-01T15:00:00Z",
      endsAt: "2026-12-01T16:00:00Z",
      notes: `Call ${PERSON.email} before coming`,
      idempotencyKey: "erasure-booking-1",
    });
    const appointmentId = String((await settled(String(booking.body.submissionId))).result?.appointmentId);

    // A request a guardrail refused: kept for the owner, with the native payload.
    const profile = await createProfile({ ctx, companyId, input: { name: "too-big", kind: "lead" } });
    const expression = `{ "fullName": $pad(fullName, 1000001), "email": email, "phone": phone, "address": address }`;
    const saved = await saveProfileVersion({
      ctx,
      companyId,
      profileId: profile.id,
      input: { expression, samples: [{ name: "big", payload: PERSON, expect: { error: { kind: "guardrail" } } }] },
    });
    await publishProfileVersion({ ctx, companyId, versionId: saved.version.id });
    const guarded = await createVendorKey({
      ctx,
      companyId,
      input: {
        name: "guarded",
        partnerType: "lead_source",
        scopes: ["leads:write"],
        credentialId,
        leadProfileVersionId: saved.version.id,
      },
    });
    expect((await submit("/api/inbound/leads", guarded.key, { ...PERSON, extra: true })).status).toBe(422);

    // A key in capture mode: what its vendor sent is stored as received, never forwarded (D-315, D-317).
    const capturing = await createVendorKey({
      ctx,
      companyId,
      input: { name: "capturing", partnerType: "lead_source", scopes: ["leads:write"], credentialId },
    });
    await setCaptureMode({ ctx, companyId, target: { keyId: capturing.id }, on: true });
    expect((await submit("/api/inbound/leads", capturing.key, { customer: PERSON })).body).toMatchObject({
      status: "captured",
    });

    // The platform's own report of a move of that booking, its body stored as received (with the customer's e-mail).
    const secret = "erasure-platform-secret-0001";
    await loadPlatformSecret({ ctx, companyId, input: { version: 1, secret } });
    const moved = platformEnvelope({
      resource: { type: "appointment", id: appointmentId, version: 2 },
      data: {
        change: "moved",
        appointmentId,
        leadId,
        startsAt: "2026-12-02T15:00:00Z",
        endsAt: "2026-12-02T16:00:00Z",
        customer: { name: PERSON.fullName, phone: PERSON.phone, address: PERSON.address, email: PERSON.email },
      },
    });
    expect((await deliverToGateway(rig.url, companyId, JSON.stringify(moved), { secret })).status).toBe(200);

    const pending = () =>
      sqlOf(rig.gateway).selectFrom("webhookDeliveries").selectAll().where("companyId", "=", companyId).execute();
    await until(async () => (await pending()).length === 3);
    const files = [databasePath, `${databasePath}-wal`, `${databasePath}-shm`].filter((f) => existsSync(f));
    const traces = (text: string) => files.filter((f) => readFileSync(f).includes(Buffer.from(text, "utf8")));
    // The positive control: the search finds the person before the erasure.
    expect(traces(PERSON.email).length).toBeGreaterThan(0);
    expect(traces(PERSON.fullName).length).toBeGreaterThan(0);

    const erasure = await erasePerson({ ctx, companyId, input: { email: ` ${PERSON.email.toUpperCase()} ` } });
    expect(erasure).toEqual({
      erased: 1,
      appointments: 1,
      mappingFailures: 1,
      captures: 1,
      samples: 1,
      webhookEvents: 2,
      pendingDeliveries: 3,
      platformEvents: 1,
      walTruncated: true,
    });

    for (const text of [PERSON.email, PERSON.fullName, PERSON.phone, PERSON.address]) expect(traces(text)).toEqual([]);
    // Pending deliveries are still to be sent, without the person: the booking vendor still hears of its booking.
    const after = await pending();
    expect(after.map((d) => d.status)).toEqual(["pending", "pending", "pending"]);
    const booked = await sqlOf(rig.gateway)
      .selectFrom("webhookEvents")
      .selectAll()
      .where("event", "=", "appointment.booked")
      .execute();
    expect(booked.map((e) => JSON.parse(e.envelope).data)).toEqual([
      { change: "created", appointmentId, leadId, startsAt: "2026-12-01T15:00:00Z", endsAt: "2026-12-01T16:00:00Z" },
      { change: "moved", appointmentId, leadId, startsAt: "2026-12-02T15:00:00Z", endsAt: "2026-12-02T16:00:00Z" },
    ]);
    expect(
      (await sqlOf(rig.gateway).selectFrom("mappingFailures").selectAll().execute()).map((f) => f.rawPayload),
    ).toEqual([null]);
  });
});
