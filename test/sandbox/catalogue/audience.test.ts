import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIENCE, eventsOf } from "../../../src/sandbox/events/audience.js";
import { type Json, newSandbox, send } from "../support.js";
import { FAST } from "../webhooks/support.js";
import {
  EXPECTED,
  eventsOfType,
  forbiddenOf,
  PARTNER_TYPES,
  type PartnerType,
  runScenario,
  type Scenario,
  scenarioValues,
} from "./scenario.js";

const TOKEN = "admin-token-for-catalogue-tests";
let sandbox: ReturnType<typeof newSandbox>;
let scenario: Scenario;
let raw: string;
const VALUES = scenarioValues();

beforeAll(async () => {
  sandbox = newSandbox({ adminToken: TOKEN, webhooks: FAST });
  const http = async (
    method: string,
    path: string,
    init: { key?: string; bearer?: string; json?: unknown; idempotencyKey?: string } = {},
  ): Promise<Json> => {
    const headers: Record<string, string> = {};
    if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
    if (init.idempotencyKey) headers["idempotency-key"] = init.idempotencyKey;
    if (init.key) headers["x-api-key"] = init.key;
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const res = await sandbox.app.request(path, {
      method,
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
  scenario = await runScenario({
    http,
    adminToken: TOKEN,
    session: async (companyId) => sandbox.admin.ownerSession(companyId).sessionToken,
    company: "org_sunrise",
    installerCompany: "org_voltworks",
    keys: {
      leadSource: sandbox.key("sunrise-leads-only"),
      general: sandbox.key("sunrise-general"),
      contractor: sandbox.key("sunrise-crew-a"),
      installer: sandbox.key("voltworks-installer"),
    },
    projectId: "prj_sunrise_0100",
  });
  raw = JSON.stringify(sandbox.admin.events());
}, 30_000);

afterAll(async () => {
  sandbox.close();
  await Promise.all(scenario?.receivers.map((r) => r.close()) ?? []);
});

const { money, contact, payment, FORBIDDEN } = forbiddenOf(VALUES, "prj_sunrise_0100");

describe("§1 × §6.7: every event × every partner type", () => {
  it("the audience table (src/sandbox/events/audience.ts) is §1 read against §6.7", () => {
    expect(AUDIENCE.map((e) => e.name).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const type of PARTNER_TYPES) expect([type, eventsOf(type).sort()]).toEqual([type, eventsOfType(type).sort()]);
  });

  it("each event is delivered to exactly the partner types §1 allows, and to at least one", () => {
    for (const [event, types] of Object.entries(EXPECTED)) {
      expect([event, types.length > 0]).toEqual([event, true]);
      for (const type of PARTNER_TYPES) {
        const delivered = scenario.bodies[type].some((b) => b.event === event);
        expect([event, type, delivered]).toEqual([event, type, types.includes(type)]);
      }
    }
  });

  it("no delivered body carries a value its type must never receive (byte scan)", () => {
    for (const type of PARTNER_TYPES) {
      for (const body of scenario.bodies[type]) {
        const found = FORBIDDEN[type].filter((value) => body.raw.includes(value));
        expect([type, body.event, found]).toEqual([type, body.event, []]);
      }
    }
  });

  it("positive control: every forbidden value is in the licensee's bodies or the platform's raw events", async () => {
    const licensee = scenario.bodies.licensee.map((b) => b.raw).join("\n");
    const job = JSON.stringify(
      (await send(sandbox.app, "GET", `/sandbox/admin/install-jobs/${scenario.jobId}`, { token: TOKEN })).body,
    );
    const everywhere = `${licensee}\n${raw}\n${job}`;
    const all = new Set(Object.values(FORBIDDEN).flat());
    for (const value of all) expect([value, everywhere.includes(value)]).toEqual([value, true]);
    // The licensee sees the price, cost, margin and contact details; card and bank digits only stay on the platform.
    for (const value of [...money, ...contact]) expect([value, licensee.includes(value)]).toEqual([value, true]);
    for (const value of payment) expect([value, raw.includes(value)]).toEqual([value, true]);
  });

  it("§1 lead source: lead id and stage only, only for the lead it sourced", () => {
    const datas = scenario.bodies.lead_source
      .filter((b) => b.event !== "install.test")
      .map((b) => JSON.parse(b.raw).data as Record<string, unknown>);
    expect(datas.length).toBe(3);
    for (const data of datas) expect(Object.keys(data).sort()).toEqual(["leadId", "stage"]);
    expect(new Set(datas.map((d) => d.leadId))).toEqual(new Set([scenario.leadId]));
  });

  it("§1 booking vendor: the visit it booked, moved in the platform — name, address, phone; never the other visit", () => {
    const booked = scenario.bodies.booking_vendor.filter((b) => b.event === "appointment.booked");
    expect(booked.length).toBe(1);
    const data = JSON.parse(booked[0]?.raw ?? "{}").data;
    expect(data).toMatchObject({
      change: "moved",
      leadId: scenario.leadId,
      customer: { name: VALUES.customerName, phone: VALUES.customerPhone, address: VALUES.customerAddress },
    });
    expect(Object.keys(data.customer).sort()).toEqual(["address", "name", "phone"]);
  });

  it("§1 financing: amounts and status; accounting: journal amounts with project and invoice ids", () => {
    const financing = scenario.bodies.financing.map((b) => JSON.parse(b.raw));
    const deposits = financing.filter((e) => e.event === "deposit.paid").map((e) => e.data);
    expect(deposits).toEqual([
      { depositId: expect.stringMatching(/^dep_/), amount: 2500.99, currency: "USD", status: "PAID" },
      { depositId: expect.stringMatching(/^dep_/), amount: 2500.99, currency: "USD", status: "PAID" },
    ]);
    const journal = scenario.bodies.accounting
      .filter((b) => b.event === "journal.entry_posted")
      .map((b) => JSON.parse(b.raw).data);
    expect(journal.map((j) => [j.entryType, j.amount])).toEqual([
      ["deposit", 2500.99],
      ["deposit_refund", -2500.99],
      ["deposit", 2500.99],
      ["invoice", 11111.11],
    ]);
    expect(journal[3]).toMatchObject({ projectId: "prj_sunrise_0100", invoiceId: expect.stringMatching(/^inv_/) });
  });
});

/** docs/sandbox.md "Event catalogue and partner types": event → partner type → documented top-level data fields. */
function documentedTable(): Map<string, Map<string, string[]>> {
  const docs = readFileSync(new URL("../../../docs/sandbox.md", import.meta.url), "utf8");
  const start = docs.indexOf("### Event catalogue and partner types");
  const section = docs.slice(start, docs.indexOf("\n### ", start + 10));
  const table = new Map<string, Map<string, string[]>>();
  for (const line of section.split("\n")) {
    const cells = line.split(" | ");
    const event = /^\| `([a-z_.]+)`/.exec(line)?.[1];
    const audience = cells[2];
    if (!event || !audience) continue;
    const types = new Map<string, string[]>();
    for (const part of audience.split(" · ")) {
      const fields = (/`([^`]*)`/.exec(part)?.[1] ?? "").split(", ");
      const head = part.slice(0, part.indexOf("`"));
      for (const type of head.matchAll(/\*\*([a-z_]+)\*\*/g)) types.set(type[1] ?? "", fields);
    }
    table.set(event, types);
  }
  return table;
}

describe("docs/sandbox.md event table", () => {
  it("names every event, exactly the partner types that receive it, and the fields they get", () => {
    const table = documentedTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const [event, types] of table) {
      expect([event, [...types.keys()].sort()]).toEqual([event, [...(EXPECTED[event] ?? [])].sort()]);
      for (const [type, fields] of types) {
        const observed = new Set(
          scenario.bodies[type as PartnerType]
            .filter((b) => b.event === event)
            .flatMap((b) => Object.keys(JSON.parse(b.raw).data as object)),
        );
        const required = fields.filter((f) => !f.endsWith("?"));
        const allowed = new Set(fields.map((f) => f.replace(/\?$/, "")));
        expect([event, type, required.filter((f) => !observed.has(f))]).toEqual([event, type, []]);
        expect([event, type, [...observed].filter((f) => !allowed.has(f))]).toEqual([event, type, []]);
      }
    }
  });
});
