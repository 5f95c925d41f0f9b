import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_BODY } from "../../src/http/body-limit.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { rawRequest } from "../helpers/raw-http.js";

/**
 * docs/decisions.md, "Bounded input", walked over the route registry (the app's OpenAPI document): every owner route
 * refuses a body past the limit it declares, and every string and array it takes has a maximum.
 */
type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: Schema | boolean;
};
type Operation = {
  description?: string;
  parameters?: { name: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

let t: TestGateway;
let token: string;
let document: Document;

beforeAll(async () => {
  t = await startTestGateway();
  const acme = await seedCompany(t.gateway, "Limits");
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email: acme.email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(signIn)).csrfToken);
  token = String(
    (await json(await postJson(`${t.url}/owner/v1/tokens`, { name: "t" }, { cookie, "x-csrf-token": csrf }))).token,
  );
  document = (await json(await fetch(`${t.url}/openapi.json`))) as unknown as Document;
});
afterAll(() => t.close());

function ownerOperations(): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith("/owner/v1/"))
    .flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
    );
}

/** The body limit a route states in its description, or the owner API's default for a route without a body. */
function declaredLimit(operation: Operation): number {
  if (!operation.requestBody) return OWNER_BODY.maxBytes;
  const stated = /JSON of at most (\d+) bytes/.exec(operation.description ?? "")?.[1];
  expect(stated, "a route with a body states its limit").toBeDefined();
  return Number(stated);
}

describe("every owner route refuses a body past its declared limit (docs/decisions.md, Bounded input)", () => {
  it("answers 413 to a declared length one byte past each route's limit, before reading it", async () => {
    const operations = ownerOperations();
    expect(operations.length).toBeGreaterThan(30);
    for (const { method, path, operation } of operations) {
      const limit = declaredLimit(operation);
      const res = await rawRequest(`${t.url}${path.replace(/\{[^}]+\}/g, "x")}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        declaredLength: limit + 1,
        chunks: ["{"],
      });
      expect(res.status, `${method} ${path}`).toBe(413);
    }
  });
});

describe("every string and array the owner API takes has a maximum (docs/decisions.md, Bounded input)", () => {
  it("states maxLength on every string and maxItems on every array of its bodies and queries", () => {
    const unbounded: string[] = [];
    const seen = new Set<Schema>();
    const walk = (schema: Schema | undefined, at: string): void => {
      if (!schema || seen.has(schema)) return;
      if (schema.$ref) {
        walk(document.components.schemas[schema.$ref.split("/").pop() ?? ""], at);
        return;
      }
      seen.add(schema);
      if (schema.type === "string" && schema.enum === undefined && schema.maxLength === undefined) unbounded.push(at);
      if (schema.type === "array" && schema.maxItems === undefined) unbounded.push(at);
      for (const [name, property] of Object.entries(schema.properties ?? {})) walk(property, `${at}.${name}`);
      walk(schema.items, `${at}[]`);
      for (const option of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
        walk(option, at);
      if (typeof schema.additionalProperties === "object") walk(schema.additionalProperties, `${at}.*`);
    };
    let inputs = 0;
    for (const { method, path, operation } of ownerOperations()) {
      for (const parameter of operation.parameters ?? []) {
        inputs++;
        walk(parameter.schema, `${method} ${path} ?${parameter.name}`);
      }
      for (const content of Object.values(operation.requestBody?.content ?? {})) {
        inputs++;
        walk(content.schema, `${method} ${path} body`);
      }
    }
    expect(inputs).toBeGreaterThan(20);
    expect(unbounded).toEqual([]);
  });
});
