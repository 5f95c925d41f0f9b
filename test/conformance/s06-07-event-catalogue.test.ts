import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EXPECTED,
  forbiddenOf,
  type Http,
  PARTNER_TYPES,
  runScenario,
  type Scenario,
} from "../sandbox/catalogue/scenario.js";
import { RUN } from "./support/fixtures.js";
import { call } from "./support/http.js";
import { ownerPassword, ROOMY_LIMITS } from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";

let target: Target;
let scenario: Scenario;

beforeAll(async () => {
  if (!HAS_COMPANY_SIDE) return;
  target = await openTarget({ limits: ROOMY_LIMITS });
  const http: Http = async (method, path, init = {}) => {
    const headers: Record<string, string> = {};
    if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
    if (init.idempotencyKey) headers["idempotency-key"] = init.idempotencyKey;
    const reply = await call(target, method, path, { key: init.key, json: init.json, headers });
    return { status: reply.status, body: (reply.body ?? {}) as Record<string, unknown> };
  };
  const { keys, fixtures } = target;
  scenario = await runScenario({
    http,
    adminToken: target.adminToken ?? "",
    session: async (companyId) => {
      const login = await http("POST", "/partner-api/session", {
        json: { companyId, password: ownerPassword(companyId) },
      });
      expect(login.status).toBe(201);
      return String(login.body.sessionToken);
    },
    company: fixtures.installJobCompanyId,
    installerCompany: fixtures.installerCompanyId,
    keys: {
      leadSource: keys.generalLeadsOnly,
      general: keys.general,
      contractor: keys.contractor,
      installer: keys.installerCompany,
    },
    projectId: fixtures.soldProjectId,
    run: RUN,
    receiverHost: process.env.CONFORMANCE_RECEIVER_HOST,
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(scenario?.receivers.map((r) => r.close()) ?? []);
  await target?.close();
});

describe.runIf(HAS_COMPANY_SIDE)("§6.7 event catalogue: every event, to the partner types §1 allows", () => {
  it.each(Object.keys(EXPECTED))("§6.7 %s: triggered, signed, delivered to exactly its partner types", (event) => {
    const { FORBIDDEN } = forbiddenOf(scenario.values, scenario.projectId);
    const reached = PARTNER_TYPES.filter((type) => scenario.bodies[type].some((b) => b.event === event));
    expect(reached).toEqual([...(EXPECTED[event] ?? [])]);
    for (const type of reached) {
      for (const body of scenario.bodies[type].filter((b) => b.event === event)) {
        // §6.3: signed with the subscription's secret.
        expect([type, body.verified]).toEqual([type, true]);
        // §6.1 envelope.
        expect(JSON.parse(body.raw)).toMatchObject({
          id: expect.stringMatching(/^evt_/),
          event,
          apiVersion: "2026-08-26",
          schemaVersion: 1,
          occurredAt: expect.stringMatching(/Z$/),
          resource: { type: expect.any(String), id: expect.any(String), version: expect.any(Number) },
          data: expect.any(Object),
        });
        // §1 limits of the view: none of the values the type must never receive.
        expect([type, FORBIDDEN[type].filter((value) => body.raw.includes(value))]).toEqual([type, []]);
      }
    }
  });

  it("positive control: the company's own subscription receives the prices and contact details others must not", () => {
    const licensee = scenario.bodies.licensee.map((b) => b.raw).join("\n");
    const { money, contact } = forbiddenOf(scenario.values, scenario.projectId);
    for (const value of [...money, ...contact]) expect([value, licensee.includes(value)]).toEqual([value, true]);
  });
});
