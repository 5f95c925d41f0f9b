import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import type { SubmissionRow } from "../../../src/gateway/storage/submissions/index.js";
import { seedCompany, startTestGateway, type TestGateway } from "../../helpers/gateway.js";
import {
  type FakeVendorApi,
  PRESETS_DIR,
  presetSample,
  type SeenRequest,
  signedRequest,
  startFakeVendorApi,
  UNHURRIED_ENGINE,
} from "./fake-vendor-api.js";

/**
 * docs/connections.md, "Fetch after notify": a vendor that notifies only ids (Meta Lead Ads, LinkedIn, Acuity) posts its
 * documented notification to the hook URL; the gateway fetches each notified record from the vendor's API — here a
 * real HTTP server answering the documented responses of the preset's samples, reached through `vendorApiBase`
 * (sandbox mode) — with the auth the preset declares, and stores the records its profile makes of it.
 */

const SECRETS = {
  meta: { appSecret: "meta-app-secret-0001", verifyToken: "verify-0001", pageAccessToken: "EAAPageToken0001" },
  linkedin: { clientSecret: "li-client-secret-0001", accessToken: "AQVlinkedinToken0001" },
  acuity: { userId: "11145481", apiKey: "acuity-api-key-0001" },
};

let gw: TestGateway;
let companyId: string;
let api: FakeVendorApi;
/** What the fake API answers for a path: the documented responses, by the record's id at the end of the path. */
const documented = new Map<string, unknown>();

beforeAll(async () => {
  gw = await startTestGateway({}, { presetsDir: PRESETS_DIR, engine: UNHURRIED_ENGINE, fetcher: { pollMs: 200 } });
  companyId = (await seedCompany(gw.gateway)).company.id;
  api = await startFakeVendorApi((request) => {
    const id = decodeURIComponent(request.url.pathname.split("/").at(-1) ?? "");
    const record = documented.get(id);
    return record === undefined ? { status: 404, body: { error: "no such record" } } : { status: 200, body: record };
  });
});
afterAll(async () => {
  await gw?.close();
  await api?.close();
});

async function connect(preset: string, secrets: Record<string, string>) {
  const made = await createConnection({
    ctx: gw.gateway.ctx,
    companyId,
    input: { name: `${preset} ${Math.random()}`, preset, secrets, vendorApiBase: api.url },
  });
  return made;
}

/** The connection's submissions once none is still being fetched, oldest first. */
async function settledRows(connectionId: string, count: number): Promise<SubmissionRow[]> {
  const rows = () => gw.gateway.ctx.submissions.listPage(companyId, { limit: 50, connectionId });
  await expect
    .poll(async () => (await rows()).filter((r) => r.status !== "fetching").length, { timeout: 15_000 })
    .toBe(count);
  return (await rows()).reverse();
}

const requestsTo = (prefix: string): SeenRequest[] => api.seen.filter((r) => r.url.pathname.startsWith(prefix));

describe("Meta Lead Ads: two leads in one POST, fetched with the page token as access_token", () => {
  it("fetches each leadgen_id from the Graph API and holds each documented lead for what it lacks", async () => {
    const sample = presetSample("meta-lead-ads", "02-two-leads-one-post.json");
    for (const [id, record] of Object.entries(sample.fetched ?? {})) documented.set(id, record);
    const connection = await connect("meta-lead-ads", SECRETS.meta);
    const request = signedRequest("meta-lead-ads", sample, SECRETS.meta.appSecret);
    const answer = await fetch(connection.hookUrl, request);
    expect(answer.status).toBe(200);

    const rows = await settledRows(connection.id, 2);
    const seen = requestsTo("/v25.0/");
    expect(seen.map((r) => r.url.pathname).sort()).toEqual(["/v25.0/123123123123", "/v25.0/123123123124"]);
    for (const request of seen) {
      expect(request.method).toBe("GET");
      expect(request.url.searchParams.get("access_token")).toBe(SECRETS.meta.pageAccessToken);
      expect(request.url.searchParams.get("fields")).toBe(
        "id,created_time,ad_id,form_id,field_data,custom_disclaimer_responses,is_organic,platform",
      );
      expect(request.headers.accept).toBe("application/json");
      expect(request.headers.authorization).toBeUndefined();
    }
    // Each notified lead is its own row, held with the reason, its fetched record as its payload.
    const byTarget = (r: SubmissionRow) => r.fetchTarget?.id ?? "";
    rows.sort((a, b) => byTarget(a).localeCompare(byTarget(b)));
    expect(rows.map((r) => [r.status, r.fetchTarget])).toEqual([
      ["held", { id: "123123123123" }],
      ["held", { id: "123123123124" }],
    ]);
    for (const row of rows) {
      expect(row.heldReason).toMatch(/phone/);
      expect(JSON.parse(row.rawPayload ?? "null")).toEqual(sample.fetched?.[row.fetchTarget?.id ?? ""]);
    }
  });
});

describe("LinkedIn Lead Gen: bearer token and LinkedIn's version headers", () => {
  it("fetches the leadFormResponse of a CREATED notification as declared, and nothing for a DELETED one", async () => {
    const created = presetSample("linkedin-lead-gen", "01-test-lead-created.json");
    for (const [id, record] of Object.entries(created.fetched ?? {})) documented.set(id, record);
    const connection = await connect("linkedin-lead-gen", SECRETS.linkedin);
    const post = (file: string) =>
      fetch(
        connection.hookUrl,
        signedRequest("linkedin-lead-gen", presetSample("linkedin-lead-gen", file), SECRETS.linkedin.clientSecret),
      );
    expect((await post("01-test-lead-created.json")).status).toBe(200);
    const [row] = await settledRows(connection.id, 1);
    const [request, ...more] = requestsTo("/rest/leadFormResponses/");
    expect(more).toEqual([]);
    expect(request?.url.pathname).toBe("/rest/leadFormResponses/1a2b3c-4");
    expect(request?.headers).toMatchObject({
      authorization: `Bearer ${SECRETS.linkedin.accessToken}`,
      "linkedin-version": "202601",
      "x-restli-protocol-version": "2.0.0",
      accept: "application/json",
    });
    expect(request?.url.searchParams.has("access_token")).toBe(false);
    expect(row).toMatchObject({ status: "held", fetchTarget: { id: "1a2b3c-4" } });

    // A deletion names no record: nothing is stored (the hook answers once it stored what it will), so nothing is
    // fetched; the CREATED one above was.
    expect((await post("02-lead-deleted.json")).status).toBe(200);
    expect(
      await gw.gateway.ctx.submissions.listPage(companyId, { limit: 50, connectionId: connection.id }),
    ).toHaveLength(1);
    expect(requestsTo("/rest/leadFormResponses/")).toHaveLength(1);
  });
});

describe("Acuity: Basic auth, and the notification's action bound as $notification", () => {
  it("stores a rescheduled appointment as the reschedule the notification says, fetched with user id and API key", async () => {
    const sample = presetSample("acuity", "02-rescheduled.json");
    for (const [id, record] of Object.entries(sample.fetched ?? {})) documented.set(id, record);
    const connection = await connect("acuity", SECRETS.acuity);
    const answer = await fetch(connection.hookUrl, signedRequest("acuity", sample, SECRETS.acuity.apiKey));
    expect(answer.status).toBe(200);
    const [row] = await settledRows(connection.id, 1);
    const [request] = requestsTo("/api/v1/appointments/");
    expect(request?.url.pathname).toBe("/api/v1/appointments/54321");
    const basic = Buffer.from(`${SECRETS.acuity.userId}:${SECRETS.acuity.apiKey}`).toString("base64");
    expect(request?.headers.authorization).toBe(`Basic ${basic}`);
    const expected = sample.expect.records?.[0];
    expect(row).toMatchObject({
      status: "noted",
      kind: "appointment",
      recordAction: "reschedule",
      vendorRecordId: "54321",
      canonicalBody: expected?.body,
      fetchTarget: { id: "54321", action: "rescheduled" },
      attempts: 0,
      lastError: null,
    });
  });
});
