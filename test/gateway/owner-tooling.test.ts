import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

/**
 * docs/decisions.md, "Bounded input": the owner's tooling (preview, sample tests, replay) evaluates on a lane of its
 * own under per-company quotas, so no owner — a viewer included — can take the evaluators intake is waiting for.
 */
const RUNAWAY = readFileSync("profiles/_attacks/runaway-retry-loop/profile.jsonata", "utf8");
const runawayPayload = JSON.parse(readFileSync("profiles/_attacks/runaway-retry-loop/payloads/runaway.json", "utf8"));

let t: TestGateway;

async function viewerToken(gw: TestGateway, companyId: string): Promise<string> {
  const email = `viewer-${companyId}@example.test`;
  await createOwner({
    ctx: gw.gateway.ctx,
    input: { companyId, email, name: "V", role: "viewer", password: OWNER_PASSWORD },
  });
  const signIn = await postJson(`${gw.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(signIn)).csrfToken);
  const res = await postJson(`${gw.url}/owner/v1/tokens`, { name: "v" }, { cookie, "x-csrf-token": csrf });
  return String((await json(res)).token);
}

const previewOnce = (gw: TestGateway, token: string, expression: string, payload: unknown = runawayPayload) =>
  fetch(`${gw.url}/owner/v1/profiles/preview`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "lead", expression, payload }),
  });

/** A preview's outcome, asked again while the answer is the designed 503 (a busy machine starves the niced lane). */
async function preview(gw: TestGateway, token: string, expression: string): Promise<Record<string, unknown>> {
  const res = await vi.waitUntil(
    async () => {
      const answer = await previewOnce(gw, token, expression);
      if (answer.status !== 503) return answer;
      expect(answer.headers.get("retry-after")).toBe("1");
      await answer.arrayBuffer();
      return false;
    },
    { timeout: 10_000, interval: 200 },
  );
  expect(res.status).toBe(200);
  return json(res);
}

/** The JSONata time limit a guardrail outcome reports ("…after 50 milliseconds"). */
const timeLimitOf = (outcome: Record<string, unknown>) =>
  outcome.kind === "guardrail" ? /after (\d+) milliseconds/.exec(String(outcome.message))?.[1] : undefined;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("owner tooling runs on a lane of its own (docs/decisions.md, Bounded input)", () => {
  it("evaluates a viewer's preview on the tooling lane (engine-level: test/gateway/profiles/tooling-lane.test.ts)", async () => {
    const acme = await seedCompany(t.gateway);
    const token = await viewerToken(t, acme.company.id);
    expect(await preview(t, token, RUNAWAY)).toMatchObject({ ok: false, kind: "guardrail" });
    expect(t.gateway.ctx.engine.stats().toolingLane?.workers).toBe(1);
  });

  it("keeps a runaway draft suspect through an edit of whitespace and comments, per company", async () => {
    const acme = await seedCompany(t.gateway);
    const rival = await seedCompany(t.gateway);
    const token = await viewerToken(t, acme.company.id);
    expect(timeLimitOf(await preview(t, token, RUNAWAY))).toBe("50");
    // The same draft, re-indented and commented: still suspect, so it gets the suspect lane's 10 ms.
    const edited = `/* try again */ ${RUNAWAY.replace(/\n/g, "\n\n    ").replace(/:=/g, "  :=  ")}`;
    expect(timeLimitOf(await preview(t, token, edited))).toBe("10");
    // Another company's draft of the same text is its own: one tenant cannot make another's drafts suspect.
    expect(timeLimitOf(await preview(t, await viewerToken(t, rival.company.id), RUNAWAY))).toBe("50");
  });
});

describe("owner tooling quotas per company (docs/decisions.md, Bounded input)", () => {
  it("refuses a company's tooling requests past its concurrency with 429 and retry-after", async () => {
    const acme = await seedCompany(t.gateway);
    const token = await viewerToken(t, acme.company.id);
    const answers = await Promise.all(Array.from({ length: 8 }, () => previewOnce(t, token, RUNAWAY)));
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((r) => r.status !== 429).length).toBeGreaterThanOrEqual(2);
    for (const res of refused) expect(res.headers.get("retry-after")).toBe("1");
    expect(String((await json(refused[0] as Response)).error)).toMatch(/already running/);
  });

  it("refuses evaluations past the company's budget with 429 and retry-after; another company is not charged", async () => {
    const quota = await startTestGateway({ toolingQuota: { concurrent: 2, evaluationsPerSecond: 0.01, burst: 3 } });
    try {
      const acme = await seedCompany(quota.gateway);
      const rival = await seedCompany(quota.gateway);
      const token = await viewerToken(quota, acme.company.id);
      const expression = '{"fullName": name}';
      for (let i = 0; i < 3; i++) expect((await previewOnce(quota, token, expression)).status).not.toBe(429);
      const spent = await previewOnce(quota, token, expression);
      expect(spent.status).toBe(429);
      expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(1);
      expect((await previewOnce(quota, await viewerToken(quota, rival.company.id), expression)).status).not.toBe(429);
    } finally {
      await quota.close();
    }
  });

  it("answers 503 with retry-after when the evaluators cannot take the evaluation at all", async () => {
    const closing = await startTestGateway();
    try {
      const acme = await seedCompany(closing.gateway);
      const token = await viewerToken(closing, acme.company.id);
      await closing.gateway.ctx.engine.close();
      const res = await previewOnce(closing, token, '{"fullName": name}');
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await json(res)).toEqual({
        error: "profile evaluation is busy; retry shortly",
        code: "unavailable",
        requestId: res.headers.get("x-request-id"),
      });
    } finally {
      await closing.close();
    }
  });
});
