import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { acceptableAnswer, type FuzzTarget, intakeRequests, ownerRequests, send } from "../helpers/hostile-requests.js";
import { sqliteOf } from "../helpers/sqlite-of.js";

/**
 * docs/decisions.md, "Bounded input": whatever arrives at intake or the owner API — arbitrary JSON, a wrong content
 * type, a body cut short, hostile headers — the answer is never a 500 and the process stays up; a designed 503 (the
 * evaluators busy) says when to retry. A bounded number of runs here; `npm run bench:abuse` runs 50,000.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SIZES = { maxString: 20_000, maxDepth: 1_000 };
const EXPRESSION = `{ "fullName": name, "email": mail, "phone": tel, "address": address }`;

let t: TestGateway;
let target: FuzzTarget;

beforeAll(async () => {
  t = await startTestGateway({ intakeLimit: { ratePerSecond: 100_000, burst: 100_000 } });
  const acme = await seedCompany(t.gateway, "Fuzzed");
  const sample = { name: "Ada", mail: "ada@example.com", tel: "5550102000", address: "1 Main St" };
  const body = { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };
  const { profile, version } = await acme.publishProfile("lead", EXPRESSION, [
    { name: "s", payload: sample, expect: { body } },
  ]);
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(signIn)).csrfToken);
  const token = await postJson(`${t.url}/owner/v1/tokens`, { name: "fuzz" }, { cookie, "x-csrf-token": csrf });
  const document = (await json(await fetch(`${t.url}/openapi.json`))) as { paths: Record<string, object> };
  target = {
    mappedKey: (await acme.issueKey({ leadProfileVersionId: version.id })).key,
    plainKey: (await acme.issueKey()).key,
    ownerToken: String((await json(token)).token),
    ownerRoutes: fuzzedOwnerRoutes(document.paths),
    ids: [profile.id, version.id],
    expression: EXPRESSION,
  };
});
afterAll(() => t.close());

/** Every owner route but those that would end the fuzzer's own session or revoke its keys. */
function fuzzedOwnerRoutes(paths: Record<string, object>): FuzzTarget["ownerRoutes"] {
  const spared = new Set(["delete /owner/v1/sessions/current", "delete /owner/v1/tokens/{tokenId}"]);
  return Object.entries(paths)
    .filter(([path]) => path.startsWith("/owner/v1/"))
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method, path })))
    .filter(
      (route) =>
        !spared.has(`${route.method} ${route.path}`) && !/\/keys\/\{keyId\}\/(revoke|rotate)$/.test(route.path),
    );
}

describe("hostile input never answers 500 (docs/decisions.md, Bounded input)", () => {
  it(`intake: ${RUNS} arbitrary requests, each answered without a 500`, async () => {
    let authenticated = 0;
    await fc.assert(
      fc.asyncProperty(intakeRequests(target, SIZES), async (request) => {
        const answer = await send(t.url, request);
        if (request.authenticated && answer.status !== 401) authenticated++;
        expect(acceptableAnswer(answer.status, answer.retryAfter), `${answer.status} for ${summary(request)}`).toBe(
          true,
        );
      }),
      { numRuns: RUNS },
    );
    // Most of them got past the key into parsing and validation: the property is about those.
    expect(authenticated).toBeGreaterThan(RUNS * 0.6);
    expect((await fetch(`${t.url}/health/live`)).status).toBe(200);
  });

  it(`owner API: ${RUNS} arbitrary requests over every route, each answered without a 500`, async () => {
    expect(target.ownerRoutes.length).toBeGreaterThan(30);
    await fc.assert(
      fc.asyncProperty(ownerRequests(target, SIZES), async (request) => {
        const answer = await send(t.url, request);
        expect(acceptableAnswer(answer.status, answer.retryAfter), `${answer.status} for ${summary(request)}`).toBe(
          true,
        );
      }),
      { numRuns: RUNS },
    );
    expect((await fetch(`${t.url}/health/live`)).status).toBe(200);
    expect(t.logText()).not.toMatch(/"status":500/);
  });

  it("survives bodies cut off by the client mid-way, logging none of them as a 500", async () => {
    const { port } = new URL(t.url);
    const paths = ["/api/inbound/leads", "/owner/v1/profiles/preview", "/owner/v1/sessions"];
    for (const path of paths) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
              `x-api-key: ${target.plainKey}\r\nauthorization: Bearer ${target.ownerToken}\r\n` +
              `content-length: 10000\r\n\r\n{"fullName": "Ada`,
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on("close", () => resolve());
        socket.on("error", reject);
      });
    }
    // Its line is written once the server has given up on the body: wait for all three, then look.
    await expect.poll(() => paths.every((path) => t.logText().includes(`"path":"${path}","route"`))).toBe(true);
    expect((await fetch(`${t.url}/health/live`)).status).toBe(200);
    expect(t.logText()).not.toMatch(/"status":500/);
  });
});

describe("an unexpected failure is still a 500, not hidden as a 400 (§7)", () => {
  it("answers 500 with the bare internal error when the database is gone", async () => {
    const broken = await startTestGateway();
    try {
      const acme = await seedCompany(broken.gateway, "Broken");
      const key = (await acme.issueKey()).key;
      sqliteOf(broken.gateway).sqlite.close();
      const lead = { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };
      const res = await postJson(`${broken.url}/api/inbound/leads`, lead, { "x-api-key": key });
      expect(res.status).toBe(500);
      expect(await json(res)).toEqual({ error: "internal error" });
      expect(broken.logText()).toMatch(/"status":500/);
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

function summary(request: { method: string; path: string; headers: Record<string, string>; body: unknown }): string {
  const body = typeof request.body === "string" ? request.body.slice(0, 300) : String(request.body);
  return `${request.method} ${request.path} ${JSON.stringify(request.headers).slice(0, 300)} ${body}`;
}
