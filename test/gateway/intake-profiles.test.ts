import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSubmissionDetail, listMappingFailures } from "../../src/gateway/submissions/list-submissions.js";
import { purgeExpiredPayloads } from "../../src/gateway/submissions/retention.js";
import { json, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

// Passes its golden sample (attempt 1) and counts down forever on a vendor's real payload: a guardrail breach.
const RUNAWAY = `(
  $countdown := function($n, $steps) { $n <= 1 ? $steps : $countdown($n - 1, $steps + 1) };
  { "fullName": name, "email": email, "phone": phone, "address": address, "smsConsent": $countdown(attempt, 0) = 0 }
)`;
const payload = { name: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St", attempt: 1 };
const body = { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St", smsConsent: true };

let t: TestGateway;
let company: Awaited<ReturnType<typeof seedCompany>>;
let runaway: { key: string };
let typed: { key: string };

beforeAll(async () => {
  t = await startTestGateway();
  company = await seedCompany(t.gateway);
  const a = await company.publishProfile("lead", RUNAWAY, [{ name: "first attempt", payload, expect: { body } }]);
  runaway = await company.issueKey({ leadProfileVersionId: a.version.id });
  const b = await company.publishProfile(
    "lead",
    `{ "fullName": $string($number(name)), "email": email, "phone": phone, "address": address }`,
    [
      {
        name: "errors",
        payload: { name: "x", email: "a@b.co", phone: "5550102000", address: "1 Main St" },
        expect: { error: { kind: "mapping" } },
      },
    ],
  );
  typed = await company.issueKey({ leadProfileVersionId: b.version.id });
});
afterAll(() => t.close());

describe("intake: profile failures", () => {
  it("answers 422 when the profile breaks a guardrail on a real payload, and records it for the owner with the payload", async () => {
    const res = await postJson(
      `${t.url}/api/inbound/leads`,
      { ...payload, attempt: 1e12 },
      { "x-api-key": runaway.key },
    );
    expect(res.status).toBe(422);
    expect(String((await json(res)).error)).toMatch(/^mapping stopped: /);
    const failures = await listMappingFailures({ ctx: t.gateway.ctx, companyId: company.company.id, limit: 10 });
    expect(failures[0]?.rawPayload).toEqual({ ...payload, attempt: 1e12 });
  });

  it("still maps the same profile's ordinary payloads", async () => {
    const res = await postJson(`${t.url}/api/inbound/leads`, payload, { "x-api-key": runaway.key });
    expect(res.status).toBe(202);
  });

  it("answers 400 with the JSONata message and position for a mapping runtime error", async () => {
    const res = await postJson(
      `${t.url}/api/inbound/leads`,
      { name: "x", email: "a@b.co", phone: "5550102000", address: "1 Main St" },
      {
        "x-api-key": typed.key,
      },
    );
    expect(res.status).toBe(400);
    const answer = await json(res);
    expect(String(answer.error)).toMatch(/^mapping failed: /);
    expect(typeof answer.position).toBe("number");
  });
});

describe("intake: a key's profile that produces records (docs/decisions.md D-300)", () => {
  it("answers 422 and records it for the owner: a key's request is one body, records are a hook connection's", async () => {
    const records = `{ "kind": "lead", "id": ref, "body": { "fullName": name, "email": email, "phone": phone, "address": address } }`;
    const lead = { ...payload, ref: "r-1" };
    const { smsConsent: _consent, ...leadBody } = body;
    const { version } = await company.publishProfile("lead", records, [
      {
        name: "a record",
        payload: lead,
        expect: { records: [{ kind: "lead", id: "r-1", body: leadBody }] },
      },
    ]);
    const key = await company.issueKey({ leadProfileVersionId: version.id });
    const res = await postJson(`${t.url}/api/inbound/leads`, lead, { "x-api-key": key.key });
    expect(res.status).toBe(422);
    expect(String((await json(res)).error)).toBe(
      "mapping stopped: the profile produced records, which only a hook connection takes; a key's profile maps one body",
    );
    const failures = await listMappingFailures({ ctx: t.gateway.ctx, companyId: company.company.id, limit: 10 });
    expect(failures[0]?.rawPayload).toEqual(lead);
    // A key with a body profile takes the same payload (the positive control). A profile of its own: the runaway's
    // version is suspect after the guardrail test above, and on a busy machine its lane's smaller limit can refuse.
    const plain = await company.publishProfile(
      "lead",
      `{ "fullName": name, "email": email, "phone": phone, "address": address }`,
      [{ name: "a body", payload: lead, expect: { body: leadBody } }],
    );
    const bodyKey = await company.issueKey({ leadProfileVersionId: plain.version.id });
    const ordinary = await postJson(`${t.url}/api/inbound/leads`, lead, { "x-api-key": bodyKey.key });
    expect(ordinary.status).toBe(202);
  });
});

describe("retention", () => {
  it("purges raw payloads of finished submissions older than the retention period, and keeps queued ones", async () => {
    const key = await company.issueKey();
    const res = await postJson(`${t.url}/api/inbound/leads`, body, { "x-api-key": key.key });
    const { submissionId } = await json(res);
    const { ctx } = t.gateway;
    const later = { ...ctx, now: () => new Date(Date.now() + 31 * 86_400_000) };
    expect((await purgeExpiredPayloads({ ctx: later })).purged).toBe(0); // still queued: a redrive may need it
    await ctx.submissions.settle(String(submissionId), Date.now(), { status: "forwarded" });
    expect((await purgeExpiredPayloads({ ctx: later })).purged).toBeGreaterThanOrEqual(1);
    const detail = await getSubmissionDetail({
      ctx,
      companyId: company.company.id,
      submissionId: String(submissionId),
    });
    expect(detail.rawPayload).toBeNull();
    expect(detail.purgedAt).not.toBeNull();
  });
});

describe("API documentation", () => {
  it("publishes an OpenAPI document with the intake and owner routes, and a docs page that needs no CDN", async () => {
    const doc = (await json(await fetch(`${t.url}/openapi.json`))) as { paths: Record<string, unknown> };
    for (const path of [
      "/api/inbound/leads",
      "/api/inbound/appointments",
      "/owner/v1/keys",
      "/owner/v1/profiles/preview",
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    const page = await (await fetch(`${t.url}/docs`)).text();
    expect(page).toContain("/openapi.json");
    expect(page).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
  });
});

describe("intake when profile evaluation is unavailable", () => {
  it("answers 503 with retry-after, not a mapping error, when the engine cannot evaluate", async () => {
    const own = await startTestGateway();
    try {
      const c = await seedCompany(own.gateway);
      const { version } = await c.publishProfile(
        "lead",
        `{ "fullName": name, "email": email, "phone": phone, "address": address }`,
        [
          {
            name: "s",
            payload: { name: "A", email: "a@b.co", phone: "5550102000", address: "1 Main St" },
            expect: { body: { fullName: "A", email: "a@b.co", phone: "5550102000", address: "1 Main St" } },
          },
        ],
      );
      const key = await c.issueKey({ leadProfileVersionId: version.id });
      await own.gateway.ctx.engine.close();
      const res = await postJson(
        `${own.url}/api/inbound/leads`,
        { name: "A", email: "a@b.co", phone: "5550102000", address: "1 Main St" },
        {
          "x-api-key": key.key,
        },
      );
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
    } finally {
      await own.close();
    }
  });
});
