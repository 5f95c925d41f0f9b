import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODE_LIST } from "../../../src/http/error-codes.js";
import { startTestGateway, type TestGateway } from "../../helpers/gateway.js";

interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
}
interface Operation {
  "x-required-role"?: string;
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/**
 * Objects of an answer that are open by design: what the upstream platform answered and the canonical body a profile
 * produced are JSON the owner API passes through (D-230).
 */
const OPEN_BY_DESIGN = new Set([
  "SubmissionSummary.result",
  "SubmissionDetail.result",
  "SubmissionDetail.canonicalBody",
  // The vendor's other details a profile kept apart (D-320): whatever the profile put there.
  "SubmissionSummary.extras",
  "SubmissionDetail.extras",
  "MappingOutcome.extras",
  "MappedRecord.extras",
  "PreviewAnswer.extras",
]);

let t: TestGateway;
let doc: Document;

beforeAll(async () => {
  t = await startTestGateway();
  doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Document;
});
afterAll(() => t.close());

const ownerOperations = () =>
  Object.entries(doc.paths)
    .filter(([path]) => path.startsWith("/owner/v1/"))
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method} ${path}`, path, op })));

describe("the OpenAPI document (D-230)", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    // The validator resolves references in place: it gets a copy.
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // Every $ref points at a component the document holds.
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it("declares every path parameter of every owner operation", () => {
    for (const { key, path, op } of ownerOperations()) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
      expect(declared.sort(), key).toEqual(inPath.sort());
    }
  });

  it("states each owner operation's role, and its security unless it is public", () => {
    const operations = ownerOperations();
    expect(operations.length).toBeGreaterThan(45);
    for (const { key, op } of operations) {
      expect(["public", "viewer", "admin"], key).toContain(op["x-required-role"]);
      expect(op.security?.length ?? 0, key).toBe(op["x-required-role"] === "public" ? 0 : 2);
    }
  });

  it("gives every answer of every owner operation a named schema; every error is the OwnerError", () => {
    for (const { key, op } of ownerOperations()) {
      const statuses = Object.keys(op.responses);
      expect(
        statuses.filter((s) => s.startsWith("2")),
        key,
      ).toHaveLength(1);
      expect(statuses, key).toEqual(expect.arrayContaining(["400", "413", "500"]));
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = Object.values(response.content ?? {})[0]?.schema;
        expect(schema?.$ref, `${key} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
        if (!status.startsWith("2")) expect(schema?.$ref, `${key} ${status}`).toBe("#/components/schemas/OwnerError");
      }
    }
  });

  it("lists the closed list of error codes in the OwnerError schema", () => {
    const error = doc.components.schemas.OwnerError;
    expect(error?.properties?.code?.enum).toEqual(ERROR_CODE_LIST);
    expect(error?.additionalProperties).toBe(false);
  });

  it("has no open object in an owner answer except the pass-through JSON named here", () => {
    const answers = new Set<string>();
    for (const { op } of ownerOperations()) {
      for (const response of Object.values(op.responses)) {
        const ref = response.content?.["application/json"]?.schema.$ref;
        if (ref) answers.add(ref.replace("#/components/schemas/", ""));
      }
    }
    const open: string[] = [];
    const seen = new Set<string>();
    const walk = (schema: JsonSchema | undefined, at: string): void => {
      if (!schema) return;
      if (schema.$ref) {
        const name = schema.$ref.replace("#/components/schemas/", "");
        if (seen.has(name)) return;
        seen.add(name);
        walk(doc.components.schemas[name], name);
        return;
      }
      const isObject = schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object"));
      if (isObject && schema.additionalProperties !== false && !OPEN_BY_DESIGN.has(at)) open.push(at);
      for (const [name, property] of Object.entries(schema.properties ?? {})) walk(property, `${at}.${name}`);
      walk(schema.items, `${at}[]`);
      for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(part, at);
    };
    for (const name of answers) walk({ $ref: `#/components/schemas/${name}` }, name);
    expect(seen.size).toBeGreaterThan(40);
    // A golden sample is the owner's own request shape (its `expect` is one of three objects) echoed back.
    expect(open.filter((at) => !at.startsWith("GoldenSample"))).toEqual([]);
  });
});
