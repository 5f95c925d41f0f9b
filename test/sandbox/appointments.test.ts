import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newSandbox, send } from "./support.js";

let sandbox: ReturnType<typeof newSandbox>;
beforeEach(() => {
  sandbox = newSandbox();
});
afterEach(() => sandbox.close());

const book = (body: unknown) =>
  send(sandbox.app, "POST", "/api/inbound/appointments", { key: sandbox.key("sunrise-general"), json: body });
const booking = (idempotencyKey: string) => ({
  leadId: "lead_sunrise_0001",
  startsAt: "2026-10-01T15:00:00Z",
  endsAt: "2026-10-01T16:00:00Z",
  notes: "Gate code 1234",
  idempotencyKey,
});

describe("§4.2 rule 2: a booked appointment emits appointment.booked", () => {
  it("each booking records one appointment.booked event with the §6.1 envelope fields", async () => {
    const { body } = await book(booking("evt-check-0001"));
    const events = sandbox.admin.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      event: "appointment.booked",
      apiVersion: "2026-08-26",
      schemaVersion: 1,
      occurredAt: expect.stringMatching(/Z$/),
      resource: { type: "appointment", id: body.appointmentId, version: 1 },
      data: {
        change: "created",
        appointmentId: body.appointmentId,
        leadId: "lead_sunrise_0001",
        startsAt: "2026-10-01T15:00:00Z",
        endsAt: "2026-10-01T16:00:00Z",
        customer: {
          name: "Dana Whitfield",
          phone: "+1 (602) 555-0101",
          address: "41 Canyon View Drive, Phoenix, AZ 85004",
        },
      },
    });
  });

  it("a replay books nothing and emits nothing", async () => {
    await book(booking("evt-check-0002"));
    await book(booking("evt-check-0002"));
    expect(sandbox.admin.events()).toHaveLength(1);
    expect(sandbox.admin.stats().appointments).toHaveLength(1);
  });

  it("a refused booking (409, 404) emits nothing", async () => {
    await book(booking("evt-check-0003"));
    await book({ ...booking("evt-check-0003"), notes: "different" });
    await book({ ...booking("evt-check-0004"), leadId: "lead_brightline_0001" });
    expect(sandbox.admin.events()).toHaveLength(1);
  });

  it("moving an appointment records appointment.booked again with the next version (§6.7 created or moved)", async () => {
    const { body } = await book(booking("evt-check-0005"));
    const moved = sandbox.admin.moveAppointment({
      appointmentId: String(body.appointmentId),
      startsAt: "2026-10-02T15:00:00Z",
      endsAt: "2026-10-02T16:00:00Z",
    });
    expect(moved.version).toBe(2);
    const events = sandbox.admin.events();
    expect(events.map((e) => [e.event, e.resource.version, e.data.change])).toEqual([
      ["appointment.booked", 1, "created"],
      ["appointment.booked", 2, "moved"],
    ]);
    expect(events[1]?.data).toMatchObject({ startsAt: "2026-10-02T15:00:00Z", endsAt: "2026-10-02T16:00:00Z" });
  });
});

describe("§4.2 replays: what counts as an identical body", () => {
  it("the same fields in another order and spacing are identical", async () => {
    const first = await book(booking("order-check-01"));
    const reordered = await sandbox.app.request("/api/inbound/appointments", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": sandbox.key("sunrise-general") },
      body: '{ "idempotencyKey":"order-check-01", "notes":"Gate code 1234", "endsAt":"2026-10-01T16:00:00Z",\n "startsAt":"2026-10-01T15:00:00Z", "leadId":"lead_sunrise_0001" }',
    });
    expect(reordered.status).toBe(200);
    expect(await reordered.json()).toEqual(first.body);
  });

  it("a replay answers the original even after the appointment was moved", async () => {
    const first = await book(booking("moved-check-01"));
    sandbox.admin.moveAppointment({
      appointmentId: String(first.body.appointmentId),
      startsAt: "2026-10-03T15:00:00Z",
      endsAt: "2026-10-03T16:00:00Z",
    });
    const replay = await book(booking("moved-check-01"));
    expect(replay).toMatchObject({ status: 200, body: first.body });
  });
});

describe("referee stats: no appointment created twice", () => {
  it("lists every appointment with its idempotency key and how often it was replayed", async () => {
    await book(booking("stats-check-01"));
    await book(booking("stats-check-01"));
    await book(booking("stats-check-01"));
    await book(booking("stats-check-02"));
    const list = sandbox.admin.stats().appointments;
    expect(list.map((a) => [a.idempotencyKey, a.replays, a.keyId])).toEqual([
      ["stats-check-01", 2, "svc_test_SUNgn0001"],
      ["stats-check-02", 0, "svc_test_SUNgn0001"],
    ]);
  });
});
