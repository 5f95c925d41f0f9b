import type { RouteConfig } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { answersOf } from "../../src/gateway/intake/intake-answers.js";
import { postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

interface DocumentOperation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const LEAD = { fullName: "Ada Lovelace", email: "ada@example.com", phone: "5550102000", address: "1 Main St" };
const VENDOR_PATHS = ["/api/inbound/leads", "/api/inbound/appointments", "/api/inbound/submissions/{submissionId}"];

let t: TestGateway;
let acme: Awaited<ReturnType<typeof seedCompany>>;
let key: string;
let leadsOnly: string;
let recordsKey: string;

beforeAll(async () => {
  // A small intake bucket, so one test can spend it; the others stay well under it.
  t = await startTestGateway({ intakeLimit: { ratePerSecond: 0.001, burst: 40 } });
  acme = await seedCompany(t.gateway);
  key = (await acme.issueKey()).key;
  leadsOnly = (await acme.issueKey({ scopes: ["leads:write"] })).key;
  const records = `{ "kind": "lead", "id": ref, "body": { "fullName": fullName, "email": email, "phone": phone, "address": address } }`;
  const sample = { ...LEAD, ref: "r-1" };
  const { version } = await acme.publishProfile("lead", records, [
    { name: "a record", payload: sample, expect: { records: [{ kind: "lead", id: "r-1", body: LEAD }] } },
  ]);
  recordsKey = (await acme.issueKey({ leadProfileVersionId: version.id })).key;
});
afterAll(() => t.close());

/** The zod schema the app's registry (what /openapi.json is made of) declares for a vendor operation's status. */
function declared(method: string, path: string, status: number): ZodType | undefined {
  for (const definition of t.gateway.app.openAPIRegistry.definitions) {
    if (definition.type !== "route" || definition.route.method !== method || definition.route.path !== path) continue;
    const responses = (definition.route as RouteConfig).responses as Record<
      string,
      { content?: Record<string, { schema?: unknown }> }
    >;
    return responses[String(status)]?.content?.["application/json"]?.schema as ZodType | undefined;
  }
  return undefined;
}

/** A real answer of the intake, checked against the schema declared for its status. */
async function expectDeclared(method: "post" | "get", path: string, res: Response): Promise<unknown> {
  const body = await res.json();
  const schema = declared(method, path, res.status);
  expect(schema, `${method} ${path} declares no schema for ${res.status}: ${JSON.stringify(body)}`).toBeDefined();
  const parsed = schema?.safeParse(body);
  expect(parsed?.success, `${method} ${path} ${res.status}: ${parsed?.error?.message}\n${JSON.stringify(body)}`).toBe(
    true,
  );
  return body;
}

describe("§4.2, §7: the vendor-facing operations in /openapi.json (D-327)", () => {
  it("declare a success and the errors a vendor meets, 401 and 429 among them, each with a JSON body schema", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, DocumentOperation>>;
    };
    const vendorOperations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/api/inbound/"))
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method} ${path}`, op })));
    expect(vendorOperations.map((o) => o.key).sort()).toEqual(
      [
        "post /api/inbound/leads",
        "post /api/inbound/appointments",
        "get /api/inbound/submissions/{submissionId}",
      ].sort(),
    );
    for (const { key: name, op } of vendorOperations) {
      const statuses = Object.keys(op.responses).map(Number);
      expect(
        statuses.some((s) => s >= 200 && s < 300),
        name,
      ).toBe(true);
      for (const status of [401, 404, 429, 500, 503]) expect(statuses, name).toContain(status);
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content?.["application/json"]?.schema;
        expect(schema, `${name} ${status}`).toBeDefined();
        expect(JSON.stringify(schema), `${name} ${status}`).not.toBe("{}");
      }
    }
    // The status of a submission: its body is named, not a bare description.
    const status = doc.paths["/api/inbound/submissions/{submissionId}"]?.get?.responses["200"];
    expect(status?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/SubmissionStatus" });
  });

  it("declares, for every vendor operation, exactly the catalogue's answers", () => {
    const operations = { lead: VENDOR_PATHS[0], appointment: VENDOR_PATHS[1], status: VENDOR_PATHS[2] } as const;
    for (const [operation, path] of Object.entries(operations) as [keyof typeof operations, string][]) {
      const method = operation === "status" ? "get" : "post";
      for (const answer of answersOf(operation)) expect(declared(method, path, answer.status)).toBeDefined();
      expect(declared(method, path, 418)).toBeUndefined();
    }
  });
});

describe("§7: a real answer of each kind validates against its declared schema (D-327)", () => {
  const leads = () => `${t.url}/api/inbound/leads`;
  const appointments = () => `${t.url}/api/inbound/appointments`;
  const status = (id: string) => `${t.url}/api/inbound/submissions/${id}`;

  it("202 accepted, 200 replay, 200 status, 409 reused key, 404 someone else's submission", async () => {
    const headers = { "x-api-key": key, "idempotency-key": "lead-answers-1" };
    const accepted = (await expectDeclared(
      "post",
      VENDOR_PATHS[0] as string,
      await postJson(leads(), LEAD, headers),
    )) as { submissionId: string };
    const replay = await postJson(leads(), LEAD, headers);
    expect(replay.status).toBe(200);
    await expectDeclared("post", VENDOR_PATHS[0] as string, replay);
    const reused = await postJson(leads(), { ...LEAD, fullName: "Someone Else" }, headers);
    expect(reused.status).toBe(409);
    await expectDeclared("post", VENDOR_PATHS[0] as string, reused);

    const mine = await fetch(status(accepted.submissionId), { headers: { "x-api-key": key } });
    expect(mine.status).toBe(200);
    await expectDeclared("get", VENDOR_PATHS[2] as string, mine);
    const other = await fetch(status(accepted.submissionId), { headers: { "x-api-key": leadsOnly } });
    expect(other.status).toBe(404);
    await expectDeclared("get", VENDOR_PATHS[2] as string, other);
    const nobody = await fetch(status(accepted.submissionId));
    expect(nobody.status).toBe(401);
    await expectDeclared("get", VENDOR_PATHS[2] as string, nobody);
  });

  it("400 (a field, malformed JSON), 401, 403, 404 (an appointment's lead), 413, 415, 422", async () => {
    const cases: [string, string, Response, number][] = [
      ["lead", leads(), await postJson(leads(), { ...LEAD, email: "nope" }, { "x-api-key": key }), 400],
      ["lead", leads(), await postJson(leads(), "{not json", { "x-api-key": key }), 400],
      ["lead", leads(), await postJson(leads(), LEAD), 401],
      ["appointment", appointments(), await postJson(appointments(), {}, { "x-api-key": leadsOnly }), 403],
      [
        "appointment",
        appointments(),
        await postJson(
          appointments(),
          {
            leadId: "sub_nosuchlead",
            startsAt: "2030-01-01T10:00:00Z",
            endsAt: "2030-01-01T11:00:00Z",
            idempotencyKey: "apt-answers-1",
          },
          { "x-api-key": key },
        ),
        404,
      ],
      ["lead", leads(), await postJson(leads(), "x".repeat(1_000_001), { "x-api-key": key }), 413],
      [
        "lead",
        leads(),
        await fetch(leads(), {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "text/plain" },
          body: "x",
        }),
        415,
      ],
      ["lead", leads(), await postJson(leads(), { ...LEAD, ref: "r-2" }, { "x-api-key": recordsKey }), 422],
    ];
    for (const [kind, , res, expected] of cases) {
      expect(res.status, kind).toBe(expected);
      await expectDeclared("post", kind === "lead" ? (VENDOR_PATHS[0] as string) : (VENDOR_PATHS[1] as string), res);
    }
  });

  it("429 once the key's intake rate is spent, with retry-after", async () => {
    const spender = (await acme.issueKey()).key;
    let res = await postJson(leads(), LEAD, { "x-api-key": spender });
    // The positive control: the key's first request is taken.
    expect(res.status).toBe(202);
    for (let i = 0; i < 60 && res.status !== 429; i++) res = await postJson(leads(), LEAD, { "x-api-key": spender });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectDeclared("post", VENDOR_PATHS[0] as string, res);
  });
});
