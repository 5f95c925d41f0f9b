import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BEFORE_START,
  ENDS_AT,
  idempotencyKey,
  NOTES_500,
  NOTES_501,
  newLead,
  STARTS_AT,
  WITH_OFFSET,
  WITHOUT_ZONE,
} from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";

let target: Target;
let leadId: string;
let otherCompanyLeadId: string;

async function createLead(key: string): Promise<string> {
  const reply = await call(target, "POST", "/api/inbound/leads", { key, json: newLead() });
  return (reply.body as { leadId: string }).leadId;
}

beforeAll(async () => {
  target = await openTarget();
  leadId = await createLead(target.keys.general);
  otherCompanyLeadId = await createLead(target.keys.otherCompanyGeneral);
});
afterAll(() => target.close());

const book = (json: unknown, key = target.keys.general) =>
  call(target, "POST", "/api/inbound/appointments", { key, json });
const booking = (overrides: Record<string, unknown> = {}) => ({
  leadId,
  startsAt: STARTS_AT,
  endsAt: ENDS_AT,
  idempotencyKey: idempotencyKey(36),
  ...overrides,
});

function expectFieldError(reply: Reply, field: string): void {
  expect(reply.status).toBe(400);
  expect(errorMessage(reply)).toContain(field);
}

describe("§2.8 Appointment (request)", () => {
  it.each(["leadId", "startsAt", "endsAt", "idempotencyKey"])("%s is required", async (field) => {
    const body: Record<string, unknown> = booking();
    delete body[field];
    expectFieldError(await book(body), field);
  });

  it("a booking answers 201 {appointmentId} with the apt_ prefix", async () => {
    const reply = await book(booking());
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ appointmentId: expect.stringMatching(/^apt_/) });
  });

  it("endsAt must be after startsAt", async () => {
    expectFieldError(await book(booking({ endsAt: BEFORE_START })), "endsAt");
    expectFieldError(await book(booking({ endsAt: STARTS_AT })), "endsAt");
  });

  it("times are ISO-8601 UTC with a Z suffix (§8 Time)", async () => {
    expectFieldError(await book(booking({ endsAt: WITH_OFFSET })), "endsAt");
    expectFieldError(await book(booking({ startsAt: WITHOUT_ZONE })), "startsAt");
    expectFieldError(await book(booking({ startsAt: "next tuesday" })), "startsAt");
  });

  it("notes take up to 500 characters", async () => {
    expect((await book(booking({ notes: NOTES_500 }))).status).toBe(201);
    expectFieldError(await book(booking({ notes: NOTES_501 })), "notes");
  });

  it("idempotencyKey takes 8 to 160 characters", async () => {
    expect((await book(booking({ idempotencyKey: idempotencyKey(8) }))).status).toBe(201);
    expect((await book(booking({ idempotencyKey: idempotencyKey(160) }))).status).toBe(201);
    expectFieldError(await book(booking({ idempotencyKey: idempotencyKey(7) })), "idempotencyKey");
    expectFieldError(await book(booking({ idempotencyKey: idempotencyKey(161) })), "idempotencyKey");
  });

  it("leadId must be a lead the caller's company can see: another company's lead is 404", async () => {
    const reply = await book(booking({ leadId: otherCompanyLeadId }));
    expect(reply.status).toBe(404);
    expect(errorMessage(reply)).not.toBe("");
  });

  it("a 404 does not confirm existence: an unknown lead answers exactly like another company's", async () => {
    const foreign = await book(booking({ leadId: otherCompanyLeadId }));
    const unknown = await book(booking({ leadId: "lead_00000000000000000000" }));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(foreign.body);
  });

  it("projectId books against a sold project of the company", async () => {
    expect((await book(booking({ projectId: target.fixtures.soldProjectId }))).status).toBe(201);
  });

  it("a projectId the company cannot see is 404", async () => {
    expect((await book(booking({ projectId: target.fixtures.otherCompanyProjectId }))).status).toBe(404);
    expect((await book(booking({ projectId: "prj_00000000000000000000" }))).status).toBe(404);
  });
});

describe("§4.2 Inbound API: POST /api/inbound/appointments", () => {
  it("an identical replay answers 200 with the original appointment", async () => {
    const body = booking();
    const first = await book(body);
    const replay = await book(body);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
  });

  it("the same idempotencyKey with a different body is 409 (§7)", async () => {
    const body = booking();
    expect((await book(body)).status).toBe(201);
    const changed = await book({ ...body, endsAt: "2026-10-01T17:00:00Z" });
    expect(changed.status).toBe(409);
    expect(errorMessage(changed)).not.toBe("");
  });

  it("after a 409 the original is still what an identical replay returns", async () => {
    const body = booking();
    const first = await book(body);
    await book({ ...body, notes: "changed" });
    expect((await book(body)).body).toEqual(first.body);
  });
});

describe("§8 Idempotency: scoped to the key owner", () => {
  it("another company may use the same idempotencyKey for its own booking", async () => {
    const key = idempotencyKey(40);
    const ours = await book(booking({ idempotencyKey: key }));
    const theirs = await book(
      booking({ idempotencyKey: key, leadId: otherCompanyLeadId }),
      target.keys.otherCompanyGeneral,
    );
    expect(ours.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body).not.toEqual(ours.body);
  });
});
