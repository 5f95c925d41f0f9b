import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { seedCompany, startTestGateway, type TestGateway } from "../../helpers/gateway.js";
import { type FakeVendorApi, startFakeVendorApi, UNHURRIED_ENGINE } from "./fake-vendor-api.js";

/**
 * docs/connections.md, "Fetch after notify" (D-321): a connection's fetches are held to its `fetch.perMinute`, exactly,
 * as the vendor counts them (forwarding's window: at most that many arrive in any span of the minute). The minute is
 * shortened to one second here (`minuteMs`). A connection of the owner's own declarations, with a header token, and a
 * profile of the owner's that reads the notified id as `$notification.id`.
 */

const PER_MINUTE = 2;
const MINUTE_MS = 1_000;
const API_KEY = "vendor-api-key-0001";
const IDS = ["L-1", "L-2", "L-3", "L-4", "L-5", "L-6"];

const PROFILE = `{
  "kind": "lead",
  "id": $notification.id,
  "body": {"fullName": name, "email": email, "phone": phone, "address": address}
}`;

const leadOf = (id: string) => ({
  name: `Customer ${id}`,
  email: `${id.toLowerCase()}@example.com`,
  phone: `+1512555010${id.slice(-1)}`,
  address: `${id.slice(-1)} Oak St, Austin, TX 78701`,
});
const bodyOf = (id: string) => {
  const lead = leadOf(id);
  return { fullName: lead.name, email: lead.email, phone: lead.phone, address: lead.address };
};

let gw: TestGateway;
let api: FakeVendorApi;

beforeAll(async () => {
  gw = await startTestGateway({}, { engine: UNHURRIED_ENGINE, fetcher: { minuteMs: MINUTE_MS, pollMs: 200 } });
  api = await startFakeVendorApi((request) => {
    const id = request.url.pathname.split("/").at(-1) ?? "";
    return { status: 200, body: leadOf(id) };
  });
});
afterAll(async () => {
  await gw?.close();
  await api?.close();
});

describe("a connection's rate", () => {
  it(`fetches no more than perMinute (${PER_MINUTE}) in any minute, and fetches every record`, async () => {
    const seeded = await seedCompany(gw.gateway);
    const { version } = await seeded.publishProfile("lead", PROFILE, [
      {
        name: "a fetched lead, its id from the notification",
        payload: leadOf("L-9"),
        bindings: { notification: { id: "L-9" } },
        expect: { records: [{ kind: "lead", id: "L-9", body: bodyOf("L-9") }] },
      },
    ]);
    const connection = await createConnection({
      ctx: gw.gateway.ctx,
      companyId: seeded.company.id,
      input: {
        name: "own vendor",
        secrets: { apiKey: API_KEY },
        profileVersionId: version.id,
        vendorApiBase: api.url,
        settings: {
          bodyType: "json",
          proof: { type: "none" },
          fetch: {
            ids: "leads",
            url: "https://api.vendor.example/v1/leads/{id}",
            auth: { type: "header", name: "X-Api-Key", secret: "apiKey" },
            accept: "application/json",
            perMinute: PER_MINUTE,
          },
        },
      },
    });
    const answer = await fetch(connection.hookUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ leads: IDS }),
    });
    expect(answer.status).toBe(200);

    const rows = () =>
      gw.gateway.ctx.submissions.listPage(seeded.company.id, { limit: 20, connectionId: connection.id });
    await expect
      .poll(async () => (await rows()).filter((r) => r.status === "queued").length, { timeout: 20_000 })
      .toBe(IDS.length);
    // Every record fetched once, with the header token, each mapped with its own notified id.
    expect(api.seen.map((r) => r.url.pathname).sort()).toEqual(IDS.map((id) => `/v1/leads/${id}`));
    for (const request of api.seen) expect(request.headers["x-api-key"]).toBe(API_KEY);
    for (const row of await rows()) {
      expect(row.canonicalBody).toEqual(bodyOf(row.vendorRecordId ?? ""));
      expect(row.idempotencyKey).toBe(`hook:${row.vendorRecordId}`);
    }
    // At the vendor: the request PER_MINUTE after another arrived at least a minute after it.
    const arrivals = api.seen.map((r) => r.at).sort((a, b) => a - b);
    for (let i = PER_MINUTE; i < arrivals.length; i++) {
      expect((arrivals[i] ?? 0) - (arrivals[i - PER_MINUTE] ?? 0)).toBeGreaterThanOrEqual(MINUTE_MS);
    }
  });
});
