import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import type { SubmissionRow } from "../../../src/gateway/storage/submissions/index.js";
import { seedCompany, startTestGateway, type TestGateway } from "../../helpers/gateway.js";
import {
  type FakeVendorApi,
  PRESETS_DIR,
  presetSample,
  startFakeVendorApi,
  UNHURRIED_ENGINE,
  type VendorAnswer,
} from "./fake-vendor-api.js";

/**
 * docs/connections.md, "Fetch after notify" (D-322): what the vendor's API answers decides what the notified record
 * becomes. Network errors, 5xx and 429 are tried again with backoff (a 429's Retry-After honoured); a refused token
 * and any other 4xx are the dead letter at once, in words the owner can act on; every attempt's outcome is committed
 * before the next. Yelp's preset (a bearer token, no proof) and its documented NEW_EVENT notification and lead.
 */

const TOKEN = "yelp-access-token-0001";
const sample = presetSample("yelp-leads", "02-new-lead-event.json");
const LEAD_ID = "TbvEUYEi02cmSBmqCjQbkg";
const lead = sample.fetched?.[LEAD_ID];

let gw: TestGateway;
let companyId: string;
let api: FakeVendorApi;
/** The answers the fake API gives, in order; the last one repeats. */
let script: VendorAnswer[] = [];

beforeAll(async () => {
  gw = await startTestGateway(
    {},
    {
      presetsDir: PRESETS_DIR,
      engine: UNHURRIED_ENGINE,
      fetcher: { pollMs: 200, retry: { baseMs: 40, capMs: 80, maxAttempts: 3, horizonMs: 60_000 } },
    },
  );
  companyId = (await seedCompany(gw.gateway)).company.id;
  api = await startFakeVendorApi((_request, index) => script[Math.min(index, script.length - 1)] ?? { status: 500 });
});
afterEach(() => {
  api.seen.length = 0;
});
afterAll(async () => {
  await gw?.close();
  await api?.close();
});

/** A Yelp connection whose API answers `answers`, notified of the documented lead; its row once it is not fetching. */
async function notified(answers: VendorAnswer[]): Promise<SubmissionRow> {
  script = answers;
  const connection = await createConnection({
    ctx: gw.gateway.ctx,
    companyId,
    input: {
      name: `yelp ${Math.random()}`,
      preset: "yelp-leads",
      secrets: { accessToken: TOKEN },
      vendorApiBase: api.url,
    },
  });
  const answer = await fetch(connection.hookUrl, {
    method: "POST",
    headers: sample.request.headers,
    body: sample.request.body,
  });
  expect(answer.status).toBe(200);
  const rows = () => gw.gateway.ctx.submissions.listPage(companyId, { limit: 5, connectionId: connection.id });
  await expect.poll(async () => (await rows())[0]?.status, { timeout: 15_000 }).not.toBe("fetching");
  const [row, ...others] = await rows();
  expect(others).toEqual([]);
  if (!row) throw new Error("no row");
  return row;
}

const graphError = (code: number) => ({
  // Graph API's documented error shape (developers.facebook.com/docs/graph-api/guides/error-handling).
  error: {
    message: "Error validating access token: Session has expired on Tuesday, 10-Feb-26 15:00:00 PST.",
    type: "OAuthException",
    code,
    error_subcode: 463,
    fbtrace_id: "EJplcsCHuLu",
  },
});

describe("the record, after the vendor's API recovers", () => {
  it("tries again after a 503, then stores the lead", async () => {
    const row = await notified([
      { status: 503, body: { error: "busy" } },
      { status: 200, body: lead },
    ]);
    expect(api.seen).toHaveLength(2);
    for (const request of api.seen) {
      expect(request.url.pathname).toBe(`/v3/leads/${LEAD_ID}`);
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
    // Yelp's documented lead has no service address: held, as the preset's sample expects.
    expect(row).toMatchObject({ status: "held", attempts: 0, lastError: null, fetchTarget: { id: LEAD_ID } });
    expect(JSON.parse(row.rawPayload ?? "null")).toEqual(lead);
  });

  it("waits out a 429's Retry-After before the next request", async () => {
    const row = await notified([
      { status: 429, headers: { "retry-after": "1" } },
      { status: 200, body: lead },
    ]);
    const [first, second] = api.seen;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect(row.status).toBe("held");
  });

  it("stores nothing for a notification of a lead already stored (the vendor's repeat, D-323)", async () => {
    script = [{ status: 200, body: lead }];
    const connection = await createConnection({
      ctx: gw.gateway.ctx,
      companyId,
      input: {
        name: `yelp ${Math.random()}`,
        preset: "yelp-leads",
        secrets: { accessToken: TOKEN },
        vendorApiBase: api.url,
      },
    });
    const post = () =>
      fetch(connection.hookUrl, { method: "POST", headers: sample.request.headers, body: sample.request.body });
    const rows = () => gw.gateway.ctx.submissions.listPage(companyId, { limit: 5, connectionId: connection.id });
    const settled = async (count: number) =>
      expect
        .poll(async () => (await rows()).filter((r) => r.status !== "fetching").length, { timeout: 15_000 })
        .toBe(count);
    expect((await post()).status).toBe(200);
    await settled(1);
    const [first] = await rows();
    expect(first?.status).toBe("held");
    // Yelp posts NEW_EVENT for every message of a lead's conversation: the lead is fetched again, and is the same.
    expect((await post()).status).toBe(200);
    // Positive marker: the repeat was fetched (the API saw it); then it leaves no row behind.
    await expect.poll(() => api.seen.length, { timeout: 15_000 }).toBe(2);
    await expect.poll(async () => (await rows()).map((r) => r.id), { timeout: 15_000 }).toEqual([first?.id]);
  });
});

describe("the dead letter", () => {
  it("fails at once on a 401, telling the owner the token was refused", async () => {
    const row = await notified([
      { status: 401, body: { error: { code: "TOKEN_INVALID", description: "Invalid token" } } },
    ]);
    expect(api.seen).toHaveLength(1);
    expect(row.status).toBe("failed");
    expect(row.lastError).toMatch(/^the vendor token was refused: paste a new one \(accessToken\); .*401 Unauthorized/);
    expect(row.lastError).not.toContain(TOKEN);
  });

  it("fetches a failed notified record again when the owner redrives it, and maps the record then", async () => {
    const row = await notified([
      { status: 401, body: { error: { code: "TOKEN_INVALID", description: "Invalid token" } } },
      { status: 200, body: lead },
    ]);
    expect(row.status).toBe("failed");
    const { redriveSubmissions } = await import("../../../src/gateway/submissions/redrive.js");
    const answer = await redriveSubmissions({ ctx: gw.gateway.ctx, companyId, input: { submissionIds: [row.id] } });
    expect(answer.redriven).toBe(1);
    // Yelp's documented lead carries no service address: mapped, it is held (never queued without a body).
    await expect
      .poll(async () => (await gw.gateway.ctx.submissions.get(row.id))?.status, { timeout: 15_000 })
      .toBe("held");
    expect(api.seen).toHaveLength(2);
    const mapped = await gw.gateway.ctx.submissions.get(row.id);
    expect(mapped?.rawPayload).toBe(JSON.stringify(lead));
    expect(mapped?.heldReason).toMatch(/address/);
  });

  it("fails at once on Meta's expired-token error (400, OAuthException code 190), with the same words", async () => {
    const row = await notified([{ status: 400, body: graphError(190) }]);
    expect(api.seen).toHaveLength(1);
    expect(row.lastError).toMatch(/^the vendor token was refused: paste a new one/);
    expect(row.status).toBe("failed");
  });

  it("fails at once on another 4xx with what the vendor said, and never with the token's words", async () => {
    const row = await notified([
      { status: 404, body: { error: { code: "NOT_FOUND", description: "lead not found" } } },
    ]);
    expect(api.seen).toHaveLength(1);
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row.lastError).toMatch(/answered 404 Not Found: .*lead not found/);
    expect(row.lastError).not.toMatch(/token/);
  });

  it("fails once the retries run out, with the last answer", async () => {
    const row = await notified([{ status: 503, body: { error: "down" } }]);
    expect(api.seen).toHaveLength(3);
    expect(row).toMatchObject({ status: "failed", attempts: 3 });
    expect(row.lastError).toMatch(/^no record after 3 attempts; the last: the vendor's API answered 503/);
    // Each attempt waited for the one before it to be answered and committed.
    const times = api.seen.map((r) => r.at);
    for (let i = 1; i < times.length; i++) expect(times[i] ?? 0).toBeGreaterThan(times[i - 1] ?? 0);
  });
});
