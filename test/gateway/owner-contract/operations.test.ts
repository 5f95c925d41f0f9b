import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_OPERATIONS } from "../../../src/gateway/owner/operations.js";
import { startTestGateway, type TestGateway } from "../../helpers/gateway.js";
import { declaredSchema, type Operation, opKey, ownerOperations, PREFIX, successStatus } from "./fixture.js";

/** The owner operations that are not JSON: the live log is server-sent events (D-235), a key's posting page HTML (D-325). */
const NOT_JSON = new Set([`GET ${PREFIX}/streams/submissions`, `GET ${PREFIX}/keys/{keyId}/posting-docs/page`]);

let t: TestGateway;
let registered: Map<string, Operation>;

beforeAll(async () => {
  t = await startTestGateway();
  registered = new Map(ownerOperations(t).map((op) => [opKey(op), op]));
});
afterAll(() => t.close());

const listed = Object.entries(OWNER_OPERATIONS).flatMap(([method, paths]) =>
  Object.entries(paths).map(([path, schemas]) => ({
    key: opKey({ method, path: `${PREFIX}${path}` }),
    schemas: schemas as { ok: unknown; body?: unknown; query?: unknown },
  })),
);

const bodySchema = (op: Operation) =>
  (op.route.request?.body?.content as Record<string, { schema?: unknown }> | undefined)?.["application/json"]?.schema;

describe("the console's operations map matches the route registry (D-260)", () => {
  it("lists every JSON owner operation, and only those", () => {
    const json = [...registered.keys()].filter((key) => !NOT_JSON.has(key)).sort();
    expect(listed.map((op) => op.key).sort()).toEqual(json);
    // Positive control: the registry does hold the operations left out.
    expect([...NOT_JSON].every((key) => registered.has(key))).toBe(true);
  });

  it.each(listed)("$key: the same success, body and query schemas as the route declares", ({ key, schemas }) => {
    const op = registered.get(key);
    if (!op) throw new Error(`${key} is not registered`);
    expect(schemas.ok).toBe(declaredSchema(op, successStatus(op)));
    expect(schemas.body).toBe(bodySchema(op));
    expect(schemas.query).toBe(op.route.request?.query);
  });
});
