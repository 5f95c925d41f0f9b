import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openGatewayDb } from "../../../src/db/client.js";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { sqliteStorage } from "../../../src/gateway/storage/transaction.js";
import { seedCompany, startTestGateway } from "../../helpers/gateway.js";
import {
  type FakeVendorApi,
  PRESETS_DIR,
  presetSample,
  startFakeVendorApi,
  UNHURRIED_ENGINE,
} from "./fake-vendor-api.js";

/**
 * docs/connections.md, "Fetch after notify": the database holds what is still to fetch. A gateway that closes while a
 * fetch is in flight gives the row back unspent (no attempt counted, due at once), and the next gateway on the same
 * database fetches it when it starts. (A SQLite file: the row is read between the two gateways.)
 */

const sample = presetSample("yelp-leads", "02-new-lead-event.json");
const LEAD_ID = "TbvEUYEi02cmSBmqCjQbkg";

let dir: string;
let api: FakeVendorApi;
/** The first request is never answered: it is in flight when its gateway closes. */
const never = new Promise<never>(() => {});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pgw-fetch-restart-"));
  api = await startFakeVendorApi((_request, index) =>
    index === 0 ? never : { status: 200, body: sample.fetched?.[LEAD_ID] },
  );
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a fetch across a restart", () => {
  it("is given back when the gateway closes mid-fetch, and fetched by the next gateway", async () => {
    const databasePath = join(dir, "gateway.db");
    const options = {
      presetsDir: PRESETS_DIR,
      engine: UNHURRIED_ENGINE,
      databasePath,
      masterKey: "a".repeat(64),
      fetcher: { pollMs: 200, timeoutMs: 30_000 },
    };
    const first = await startTestGateway({}, options);
    const seeded = await seedCompany(first.gateway);
    const connection = await createConnection({
      ctx: first.gateway.ctx,
      companyId: seeded.company.id,
      input: {
        name: "Yelp",
        preset: "yelp-leads",
        secrets: { accessToken: "yelp-token-0003" },
        vendorApiBase: api.url,
      },
    });
    const hooked = await fetch(connection.hookUrl, {
      method: "POST",
      headers: sample.request.headers,
      body: sample.request.body,
    });
    expect(hooked.status).toBe(200);
    await expect.poll(() => api.seen.length, { timeout: 15_000 }).toBe(1);
    const [claimed] = await first.gateway.ctx.submissions.listPage(seeded.company.id, {
      limit: 5,
      connectionId: connection.id,
    });
    expect(claimed).toMatchObject({ status: "fetching", attempts: 0 });
    expect(claimed?.leaseUntil).not.toBeNull();
    await first.close();

    const database = openGatewayDb(databasePath);
    try {
      expect(await sqliteStorage(database).submissions.get(claimed?.id ?? "")).toMatchObject({
        status: "fetching",
        attempts: 0,
        leaseUntil: null,
        lastError: null,
        nextAttemptAt: claimed?.nextAttemptAt,
      });
    } finally {
      database.close();
    }

    const second = await startTestGateway({}, options);
    try {
      await expect
        .poll(async () => (await second.gateway.ctx.submissions.get(claimed?.id ?? ""))?.status, { timeout: 15_000 })
        .toBe("held");
      expect(api.seen).toHaveLength(2);
    } finally {
      await second.close();
    }
  });
});
