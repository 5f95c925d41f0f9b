import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { type Rig, type RigCompany, startRig } from "../../helpers/forwarding.js";
import { type FakeVendorApi, PRESETS_DIR, startFakeVendorApi, UNHURRIED_ENGINE } from "./fake-vendor-api.js";

/**
 * docs/connections.md, "Fetch after notify", end to end: Meta notifies a leadgen id, the gateway fetches the lead from
 * the Graph API (a fake on 127.0.0.1), maps it with the preset's profile into a queued lead, and forwarding sends it to
 * the sandbox's Inbound API (§4.2) like any other submission. The lead read back is Meta's documented read-back shape
 * (Lead Ads "Retrieving leads": {created_time, id, ad_id, form_id, field_data}) for a form asking Meta's standard
 * questions a home-services advertiser asks (full_name, email, phone_number, street_address, city, state, zip_code):
 * the documented example asks none of the address questions and is held (fetch-after-notify.test.ts).
 */

const APP_SECRET = "meta-app-secret-0002";
const PAGE_TOKEN = "EAAPageToken0002";
const LEADGEN_ID = "444444444444";

const readBack = {
  created_time: "2026-02-28T08:49:14+0000",
  id: LEADGEN_ID,
  ad_id: "12312312312",
  form_id: "12312312312",
  field_data: [
    { name: "full_name", values: ["Joe Example"] },
    { name: "email", values: ["Joe@Example.com"] },
    { name: "phone_number", values: ["+15125550142"] },
    { name: "street_address", values: ["12 Shoal Creek Blvd"] },
    { name: "city", values: ["Austin"] },
    { name: "state", values: ["TX"] },
    { name: "zip_code", values: ["78701"] },
  ],
};

/** Meta's leadgen notification (webhooks-for-leadgen), for one lead. */
const notification = JSON.stringify({
  object: "page",
  entry: [
    {
      id: "153125381133",
      time: 1772268554,
      changes: [
        {
          field: "leadgen",
          value: {
            leadgen_id: LEADGEN_ID,
            page_id: "123123123",
            form_id: "12312312312",
            adgroup_id: "12312312312",
            ad_id: "12312312312",
            created_time: 1772268554,
          },
        },
      ],
    },
  ],
});

let rig: Rig;
let company: RigCompany;
let api: FakeVendorApi;

beforeAll(async () => {
  rig = await startRig({
    perKey: 60,
    perCompany: 300,
    egress: 600,
    windowMs: 60_000,
    presetsDir: PRESETS_DIR,
    engine: UNHURRIED_ENGINE,
    fetcher: { pollMs: 200 },
  });
  company = await rig.addCompany("Fetched Roofing");
  api = await startFakeVendorApi((request) =>
    request.url.pathname === `/v25.0/${LEADGEN_ID}` ? { status: 200, body: readBack } : { status: 404 },
  );
});
afterAll(async () => {
  await rig?.close();
  await api?.close();
});

describe("a fetched lead reaches the platform", () => {
  it("is fetched, queued with its canonical body and the vendor's id, and forwarded to the sandbox", async () => {
    const connection = await createConnection({
      ctx: rig.gateway.ctx,
      companyId: company.gatewayCompanyId,
      input: {
        name: "Meta",
        preset: "meta-lead-ads",
        secrets: { appSecret: APP_SECRET, verifyToken: "verify-0002", pageAccessToken: PAGE_TOKEN },
        credentialId: company.credentials[0]?.id,
        vendorApiBase: api.url,
      },
    });
    const signature = `sha256=${createHmac("sha256", APP_SECRET).update(notification).digest("hex")}`;
    const answer = await fetch(connection.hookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": signature },
      body: notification,
    });
    expect(answer.status).toBe(200);

    const rows = () =>
      rig.gateway.ctx.submissions.listPage(company.gatewayCompanyId, { limit: 5, connectionId: connection.id });
    const settled = ["forwarded", "failed", "held", "noted"];
    await expect.poll(async () => settled.includes((await rows())[0]?.status ?? ""), { timeout: 15_000 }).toBe(true);
    const [row, ...others] = await rows();
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      status: "forwarded",
      heldReason: null,
      kind: "lead",
      vendorRecordId: LEADGEN_ID,
      idempotencyKey: `hook:${LEADGEN_ID}`,
      fetchTarget: { id: LEADGEN_ID },
      canonicalBody: {
        fullName: "Joe Example",
        email: "joe@example.com",
        phone: "+15125550142",
        address: "12 Shoal Creek Blvd, Austin, TX 78701",
      },
      result: { status: "created", leadId: expect.stringMatching(/^lead_/) },
    });
    expect(api.seen).toHaveLength(1);
    expect(api.seen[0]?.url.searchParams.get("access_token")).toBe(PAGE_TOKEN);
  });
});
