import { randomUUID } from "node:crypto";
import { expect, vi } from "vitest";
import { type Receiver, startReceiver } from "../webhooks/support.js";

/**
 * Every event of the catalogue triggered once against a sandbox, over HTTP only (the Inbound API, the Installer API,
 * the owner console and the admin API), with one subscription per partner type (§1) subscribed to everything its type
 * may hear. Shared by test/sandbox/catalogue/ and the conformance suite (§6.7).
 */
export type Http = (
  method: string,
  path: string,
  init?: { key?: string; bearer?: string; json?: unknown; idempotencyKey?: string },
) => Promise<{ status: number; body: Record<string, unknown> }>;

export const PARTNER_TYPES = [
  "licensee",
  "lead_source",
  "booking_vendor",
  "installer_company",
  "distributor",
  "financing",
  "accounting",
] as const;
export type PartnerType = (typeof PARTNER_TYPES)[number];

/** §1 read against §6.7: which partner types receive each event (docs/decisions.md, docs/sandbox.md). */
const INSTALL = ["licensee", "installer_company"] as const;
export const EXPECTED: Record<string, readonly PartnerType[]> = {
  "quote.sent": ["licensee", "lead_source"],
  "quote.viewed": ["licensee"],
  "quote.accepted": ["licensee", "lead_source"],
  "project.stage_changed": ["licensee"],
  "appointment.booked": ["licensee", "booking_vendor"],
  "deposit.paid": ["licensee", "financing"],
  "deposit.refunded": ["licensee"],
  "invoice.issued": ["licensee"],
  "rebate.status_changed": ["licensee", "financing"],
  "project.completed": ["licensee", "lead_source", "distributor", "financing"],
  "install.job_assigned": INSTALL,
  "install.job_unassigned": INSTALL,
  "install.job_cancelled": INSTALL,
  "install.schedule_changed": INSTALL,
  "install.readiness_changed": INSTALL,
  "install.document_available": INSTALL,
  "install.status_changed": INSTALL,
  "install.completion_received": INSTALL,
  "install.scope_acknowledgement_required": INSTALL,
  "install.test": PARTNER_TYPES,
  "journal.entry_posted": ["accounting"],
  "project.note_added": ["licensee"],
};

export const eventsOfType = (type: PartnerType) =>
  Object.keys(EXPECTED).filter((event) => EXPECTED[event]?.includes(type));

/**
 * Distinctive values of the scenario, so a byte scan of a body finds them and nothing else. `run` makes the
 * addresses unique when the scenario runs against a shared deployment (leads at one address merge, §3.3).
 */
export const scenarioValues = (run = "") => ({
  customerName: "Quinn Forbidden",
  customerEmail: "quinn.forbidden@example.com",
  customerPhone: "+1 602 555 0177",
  customerAddress: `77${run} Scan Street, Phoenix, AZ 85004`,
  otherName: "Olive Othercustomer",
  otherEmail: "olive.other@example.com",
  otherAddress: `33${run} Elsewhere Road, Mesa, AZ 85201`,
  /** Money as schema version 1 renders it (major units). */
  quotePrice: "12345.67",
  quoteCost: "8641.97",
  quoteMargin: "3703.7",
  otherQuotePrice: "22222.33",
  depositAmount: "2500.99",
  invoiceAmount: "11111.11",
  rebateAmount: "777.77",
  /** Card and bank digits of the deposits, as JSON strings. */
  cardLast4: '"4242"',
  bankLast4: '"6789"',
  installEmail: "install.forbidden@example.com",
  installPrice: "9876.54",
});
export type ScenarioValues = ReturnType<typeof scenarioValues>;

export interface Scenario {
  bodies: Record<PartnerType, Array<{ event: string; raw: string; schemaVersion: number; verified: boolean }>>;
  leadId: string;
  otherLeadId: string;
  projectId: string;
  /** An install job of the scenario, whose company-side record holds the installer-forbidden values. */
  jobId: string;
  values: ScenarioValues;
  receivers: Receiver[];
}

export interface ScenarioSetup {
  http: Http;
  adminToken: string;
  /** Owner logins (§5.7): a session for a company. */
  session(companyId: string): Promise<string>;
  company: string;
  installerCompany: string;
  keys: { leadSource: string; general: string; contractor: string; installer: string };
  /** A sold project of `company` (§3.3). */
  projectId: string;
  /** A run token for unique addresses on a shared deployment. */
  run?: string;
  /** Where the receivers listen; the target must reach it (loopback by default). */
  receiverHost?: string;
}

export async function runScenario(setup: ScenarioSetup): Promise<Scenario> {
  const { http, adminToken: token } = setup;
  const admin = async (method: string, path: string, json?: unknown) => {
    const reply = await http(method, `/sandbox/admin${path}`, { bearer: token, json });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const owner = await setup.session(setup.company);
  const installerOwner = await setup.session(setup.installerCompany);
  const vendorKey = String((await admin("POST", "/keys", { companyId: setup.company, kind: "general" })).key);
  const receivers: Receiver[] = [];
  const subscriptionIds: Array<{ id: string; bearer: string }> = [];

  const partner = async (type: PartnerType, keyIds: string[] = [], optIn = false) => {
    const reply = await http("POST", "/partner-api/partners", {
      bearer: owner,
      json: { name: `${type} partner`, type, keyIds, completedProjectsOptIn: optIn },
    });
    expect(reply.status).toBe(201);
    return String(reply.body.id);
  };
  const subscribe = async (type: PartnerType, bearer: string, extra: Record<string, unknown>) => {
    const hook = await startReceiver({ host: setup.receiverHost });
    receivers.push(hook);
    const reply = await http("POST", "/partner-api/webhooks", {
      bearer,
      json: { url: hook.url, events: eventsOfType(type), ...extra },
    });
    expect([type, reply.status, reply.body.partnerType]).toEqual([type, 201, type]);
    hook.secrets.set(1, String(reply.body.secret));
    subscriptionIds.push({ id: String(reply.body.id), bearer });
    return hook;
  };
  const keyId = (key: string) => key.split(".")[0] ?? "";
  const hooks: Record<PartnerType, Receiver> = {
    licensee: await subscribe("licensee", owner, { partnerType: "licensee" }),
    lead_source: await subscribe("lead_source", owner, {
      partnerId: await partner("lead_source", [keyId(setup.keys.leadSource)]),
    }),
    booking_vendor: await subscribe("booking_vendor", owner, {
      partnerId: await partner("booking_vendor", [keyId(vendorKey)]),
    }),
    installer_company: await subscribe("installer_company", installerOwner, {}),
    distributor: await subscribe("distributor", owner, { partnerId: await partner("distributor", [], true) }),
    financing: await subscribe("financing", owner, { partnerId: await partner("financing") }),
    accounting: await subscribe("accounting", owner, { partnerId: await partner("accounting") }),
  };
  // A distributor the company did not opt in hears nothing (§1).
  const notOptedIn = await subscribe("distributor", owner, { partnerId: await partner("distributor") });

  // Leads: one sourced by the lead source, one of another customer through the company's own key.
  const newLead = async (key: string, fullName: string, email: string, phone: string, address: string) => {
    const reply = await http("POST", "/api/inbound/leads", { key, json: { fullName, email, phone, address } });
    expect(reply.status).toBe(201);
    return String(reply.body.leadId);
  };
  const v = scenarioValues(setup.run);
  const leadId = await newLead(
    setup.keys.leadSource,
    v.customerName,
    v.customerEmail,
    v.customerPhone,
    v.customerAddress,
  );
  const otherLeadId = await newLead(setup.keys.general, v.otherName, v.otherEmail, "+1 480 555 0133", v.otherAddress);

  // appointment.booked: created by the vendor's key (not echoed to it, §4.2 rule 2), then moved in the platform.
  const book = async (key: string, lead: string) => {
    const reply = await http("POST", "/api/inbound/appointments", {
      key,
      json: {
        leadId: lead,
        startsAt: "2026-10-01T15:00:00Z",
        endsAt: "2026-10-01T16:00:00Z",
        idempotencyKey: randomUUID(),
      },
    });
    expect(reply.status).toBe(201);
    return String(reply.body.appointmentId);
  };
  const move = (id: string) =>
    admin("POST", `/appointments/${id}/move`, { startsAt: "2026-10-02T15:00:00Z", endsAt: "2026-10-02T16:00:00Z" });
  await move(await book(vendorKey, leadId));
  await move(await book(setup.keys.general, otherLeadId));

  // The sales pipeline (§6.7), every change once.
  const change = (lead: string, json: Record<string, unknown>) => admin("POST", `/leads/${lead}/events`, json);
  for (const json of [
    { event: "quote.sent", amountCents: 1_234_567, costCents: 864_197 },
    { event: "quote.viewed" },
    { event: "quote.accepted", projectId: setup.projectId },
    { event: "project.stage_changed", stage: "PERMITTING" },
    { event: "deposit.paid", amountCents: 250_099, method: "card" },
    { event: "deposit.refunded" },
    { event: "deposit.paid", amountCents: 250_099, method: "bank_transfer" },
    { event: "invoice.issued", amountCents: 1_111_111 },
    { event: "rebate.status_changed", status: "SUBMITTED", amountCents: 77_777 },
    { event: "project.completed" },
  ]) {
    await change(leadId, json);
  }
  await change(otherLeadId, { event: "quote.sent", amountCents: 2_222_233 });

  // install.*: the company's side through the admin API, the installer's through the Installer API.
  const newJob = {
    companyId: setup.company,
    installerCompanyId: setup.installerCompany,
    customer: {
      name: "Ina Stall",
      phone: "+1 602 555 0166",
      email: v.installEmail,
      address: { line1: "5 Roof Way", city: "Phoenix", state: "AZ", zip: "85004" },
    },
  };
  const job = (await admin("POST", "/install-jobs", {
    ...newJob,
    scope: { packageName: "Solar 5 kW", systemType: "SOLAR_PV", equipment: [], accessories: [], supplierSources: [] },
    commercial: { quotePrice: { amount: 9876.54, currency: "USD" }, margin: 1234.5 },
  })) as { id: string };
  const jobPath = `/install-jobs/${job.id}`;
  await admin("PUT", `${jobPath}/readiness`, { blockerCodes: ["PERMIT_PENDING"] });
  await admin("POST", `${jobPath}/documents`, { category: "PERMIT" });
  await admin("PUT", `${jobPath}/schedule`, {
    status: "CONFIRMED",
    startsAt: "2027-01-10T15:00:00.000Z",
    endsAt: "2027-01-10T23:00:00.000Z",
    timeZone: "America/Phoenix",
  });
  await admin("PUT", `${jobPath}/scope`, {
    packageName: "Solar 7 kW",
    systemType: "SOLAR_PV",
    equipment: [],
    accessories: [],
    supplierSources: [],
  });
  let version = Number(((await admin("GET", jobPath)) as { version: number }).version);
  for (const status of ["ACKNOWLEDGED", "ON_SITE", "COMPLETE"]) {
    const reply = await http("POST", `/api/partner/v1/jobs/${job.id}/status-events`, {
      key: setup.keys.installer,
      idempotencyKey: randomUUID(),
      json: { status, occurredAt: new Date().toISOString(), expectedVersion: version },
    });
    expect(reply.status).toBe(201);
    version = (reply.body.resource as { version: number }).version;
  }
  await admin("POST", `${jobPath}/completion/accept`);
  const jobBody = {
    ...newJob,
    scope: { packageName: "Battery", systemType: "STORAGE", equipment: [], accessories: [], supplierSources: [] },
  };
  const second = (await admin("POST", "/install-jobs", jobBody)) as { id: string };
  await admin("POST", `/install-jobs/${second.id}/unassign`);
  const third = (await admin("POST", "/install-jobs", {
    ...jobBody,
    scope: { ...jobBody.scope, packageName: "EV charger" },
  })) as { id: string };
  await admin("POST", `/install-jobs/${third.id}/cancel`, { reason: "customer withdrew" });

  // project.note_added: a contractor's note on one of its jobs (§4.2).
  const jobs = await http("GET", "/api/inbound/jobs?take=1", { key: setup.keys.contractor });
  const contractorJob = (jobs.body.jobs as Array<{ id: string }>)[0]?.id ?? "";
  expect(
    (
      await http("POST", `/api/inbound/jobs/${contractorJob}/status`, {
        key: setup.keys.contractor,
        json: { note: "Panels mounted" },
      })
    ).status,
  ).toBe(201);

  // install.test: on demand, to every subscription.
  for (const { id, bearer } of subscriptionIds) {
    expect((await http("POST", `/partner-api/webhooks/${id}/test`, { bearer })).status).toBe(202);
  }

  // Every queued delivery answered: nothing pending in the sandbox's delivery log (its referee stats).
  await waitUntil(async () => {
    const stats = await admin("GET", "/stats");
    const deliveries = (stats.webhooks as { deliveries: { pending: number; succeeded: number } }).deliveries;
    return deliveries.pending === 0;
  });
  const bodies = Object.fromEntries(
    PARTNER_TYPES.map((type) => [
      type,
      hooks[type].received.map((r) => ({
        event: r.envelope.event,
        raw: r.rawBody.toString("utf8"),
        schemaVersion: r.envelope.schemaVersion,
        verified: r.verification.ok,
      })),
    ]),
  ) as Scenario["bodies"];
  expect(notOptedIn.received.map((r) => r.envelope.event)).toEqual(["install.test"]);
  return { bodies, leadId, otherLeadId, projectId: setup.projectId, jobId: job.id, values: v, receivers };
}

async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  try {
    await vi.waitUntil(probe, { timeout: timeoutMs, interval: 20 });
  } catch (error) {
    throw new Error("timed out waiting for the deliveries", { cause: error });
  }
}

/** §1 "Limits of its view": what each partner type must never receive, as bytes of the scenario's values. */
export function forbiddenOf(values: ScenarioValues, projectId: string) {
  const money = [values.quotePrice, values.quoteCost, values.quoteMargin, values.depositAmount, values.invoiceAmount];
  const contact = [values.customerName, values.customerEmail, values.customerPhone, values.customerAddress];
  const payment = [values.cardLast4, values.bankLast4, '"last4"'];
  const otherCustomer = [values.otherName, values.otherEmail, values.otherAddress, values.otherQuotePrice];
  const quoteFigures = [
    values.quotePrice,
    values.quoteCost,
    values.quoteMargin,
    values.otherQuotePrice,
    '"cost"',
    '"margin"',
  ];

  const FORBIDDEN: Record<PartnerType, string[]> = {
    licensee: [...payment],
    lead_source: [...money, values.rebateAmount, ...contact, ...payment, ...otherCustomer, '"price"'],
    booking_vendor: [...money, values.rebateAmount, values.customerEmail, ...payment, ...otherCustomer, projectId],
    installer_company: [
      ...money,
      values.rebateAmount,
      values.customerEmail,
      values.installEmail,
      values.installPrice,
      ...payment,
      ...otherCustomer,
      '"margin"',
      '"financing"',
      '"payments"',
    ],
    distributor: [...money, values.rebateAmount, ...contact, ...payment, ...otherCustomer],
    financing: [...quoteFigures, values.invoiceAmount, ...contact, ...payment, ...otherCustomer],
    accounting: [...quoteFigures, ...contact, ...payment, ...otherCustomer],
  };
  return { money, contact, payment, FORBIDDEN };
}
