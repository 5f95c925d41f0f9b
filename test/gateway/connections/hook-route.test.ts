import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { seedCompany, startTestGateway, type TestGateway } from "../../helpers/gateway.js";

const PRESETS = new URL("../../../presets", import.meta.url).pathname;

function sample(preset: string, file: string) {
  return JSON.parse(readFileSync(`${PRESETS}/${preset}/samples/${file}`, "utf8")) as {
    request: { method: string; headers: Record<string, string>; body: string };
    expect: { records?: { kind: string; body: Record<string, unknown> }[] };
  };
}

describe("a hook URL: the vendor posts as it already does (docs/connections.md)", () => {
  let gw: TestGateway;
  let hookUrl: string;
  let companyId: string;

  beforeAll(async () => {
    gw = await startTestGateway({}, { presetsDir: PRESETS });
    const seeded = await seedCompany(gw.gateway);
    companyId = seeded.company.id;
    const made = await createConnection({
      ctx: gw.gateway.ctx,
      companyId,
      input: { name: "Angi", preset: "angi", secrets: { apiKey: "angi-test-key-0001" } },
    });
    hookUrl = made.hookUrl;
  });
  afterAll(async () => gw?.close());

  async function post(body: string, headers: Record<string, string>, url = hookUrl) {
    return fetch(url, { method: "POST", headers, body });
  }

  it("stores Angi's documented instant booking as a lead and its appointment, answering as Angi expects", async () => {
    const { request, expect: expected } = sample("angi", "02-instant-booking.json");
    const res = await post(request.body, { "content-type": "application/json", "x-api-key": "angi-test-key-0001" });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Record<string, unknown>;
    expect(answer.status).toBe("success");
    const rows = await gw.gateway.ctx.submissions.listPage(companyId, { limit: 10 });
    expect(rows.map((r) => r.kind).sort()).toEqual(["appointment", "lead"]);
    const lead = rows.find((r) => r.kind === "lead");
    const appointment = rows.find((r) => r.kind === "appointment");
    expect(appointment?.canonicalBody?.leadId).toBe(lead?.id);
    expect(lead?.canonicalBody).toEqual(expected.records?.[0]?.body);
    // The vendor's retry makes no second submission.
    const again = await post(request.body, { "content-type": "application/json", "x-api-key": "angi-test-key-0001" });
    expect(again.status).toBe(200);
    expect(await gw.gateway.ctx.submissions.listPage(companyId, { limit: 10 })).toHaveLength(2);
  });

  it("refuses a wrong key with 401 and an unknown hook token with 404 (positive control above)", async () => {
    const { request } = sample("angi", "01-lead-without-appointment.json");
    expect((await post(request.body, { "content-type": "application/json", "x-api-key": "wrong" })).status).toBe(401);
    const unknown = hookUrl.replace(/hk_[A-Za-z0-9_-]{4}/, "hk_zzzz");
    expect(
      (await post(request.body, { "content-type": "application/json", "x-api-key": "angi-test-key-0001" }, unknown))
        .status,
    ).toBe(404);
  });
});
