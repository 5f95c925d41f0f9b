import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newLead } from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(() => target.close());

const appointment = {
  leadId: "lead_x",
  startsAt: "2026-10-01T15:00:00Z",
  endsAt: "2026-10-01T16:00:00Z",
  idempotencyKey: "conformance-auth-1",
};

/** One request per Inbound API operation (§4.2), with the given key. */
const operations: Array<[string, (key?: string) => Promise<Reply>]> = [
  ["POST /api/inbound/leads", (key) => call(target, "POST", "/api/inbound/leads", { key, json: newLead() })],
  [
    "POST /api/inbound/appointments",
    (key) => call(target, "POST", "/api/inbound/appointments", { key, json: appointment }),
  ],
  ["GET /api/inbound/jobs", (key) => call(target, "GET", "/api/inbound/jobs", { key })],
  [
    "POST /api/inbound/jobs/{job_id}/status",
    (key) => call(target, "POST", "/api/inbound/jobs/prj_x/status", { key, json: { note: "hi" } }),
  ],
];

function expect401(reply: Reply): void {
  expect(reply.status).toBe(401);
  expect(errorMessage(reply)).not.toBe("");
  expect(reply.headers.get("x-request-id")).toBeTruthy();
}

describe("§5 Authentication", () => {
  it("test keys start with svc_test_ (§5.2)", () => {
    for (const key of Object.values(target.keys).flat()) expect(key.startsWith("svc_test_")).toBe(true);
  });

  it.each(operations)("%s without x-api-key is 401 (§5.1, §7)", async (_name, send) => {
    expect401(await send());
  });

  it.each(operations)("%s with a malformed key is 401 (§5.1: <keyId>.<secret>)", async (_name, send) => {
    expect401(await send("svc_test_nodotinthiskeyatall"));
    expect401(await send("not-a-key"));
    expect401(await send(`Bearer ${target.keys.general}`));
  });

  it.each(operations)("%s with an unknown key is 401", async (_name, send) => {
    expect401(await send("svc_test_unknownkey00000000.thisisnotarealsecret000000"));
  });

  it("a known key id with the wrong secret is 401", async () => {
    const [keyId] = target.keys.general.split(".");
    expect401((await operations[0]?.[1](`${keyId}.wrongsecretwrongsecret00`)) as Reply);
  });

  it.each(operations)("%s with a revoked key is 401", async (_name, send) => {
    expect401(await send(target.keys.revoked));
  });

  it("each surface accepts only its own key kinds; the wrong kind is 401 (§5.3)", async () => {
    const [leads, appointments, jobs, note] = operations.map(([, send]) => send);
    if (!leads || !appointments || !jobs || !note) throw new Error("operations");
    expect401(await leads(target.keys.contractor));
    expect401(await appointments(target.keys.contractor));
    expect401(await jobs(target.keys.general));
    expect401(await note(target.keys.general));
    for (const send of [leads, appointments, jobs, note]) expect401(await send(target.keys.installerCompany));
  });

  it("a key lacking the operation's scope is 403 and the message names the scope (§5.4)", async () => {
    const booking = await operations[1]?.[1](target.keys.generalLeadsOnly);
    expect(booking?.status).toBe(403);
    expect(errorMessage(booking as Reply)).toContain("appointments:write");

    const note = await operations[3]?.[1](target.keys.contractorReadOnly);
    expect(note?.status).toBe(403);
    expect(errorMessage(note as Reply)).toContain("jobs:status:write");
  });

  it("a key with the scope passes authentication (the same request without it is refused)", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", {
      key: target.keys.generalLeadsOnly,
      json: newLead(),
    });
    expect(reply.status).toBe(201);
  });
});
