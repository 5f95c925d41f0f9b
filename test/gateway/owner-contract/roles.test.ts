import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ContractGateway,
  call,
  expectDeclared,
  type Operation,
  opKey,
  ownerOperations,
  startContractGateway,
  successStatus,
} from "./fixture.js";
import { type ValidRequest, validRequests } from "./requests.js";

/**
 * Operations that are not GETs and yet need no admin: each changes nothing of the company's (a draft's samples, a
 * preview, a replay, a suggested profile), or only the caller's own credentials (its tokens, its session). A new one must be added here
 * on purpose (D-232).
 */
const VIEWER_MAY = new Set([
  "DELETE /owner/v1/sessions/current",
  "POST /owner/v1/tokens",
  "DELETE /owner/v1/tokens/{tokenId}",
  "POST /owner/v1/profiles/{profileId}/test",
  "POST /owner/v1/profile-versions/{versionId}/test",
  "POST /owner/v1/profiles/preview",
  "POST /owner/v1/profiles/replay",
  "POST /owner/v1/profile-suggestions",
]);

/**
 * Path parameters that are not a company's resource: the platform secret's `version` is a number of the company's
 * own ring, so another company meets its own ring (400: none loaded), not a 404.
 */
const NOT_A_RESOURCE = new Set(["POST /owner/v1/webhooks/platform/secrets/{version}/activate"]);

let fx: ContractGateway;
let operations: Operation[];
let requests: Map<string, ValidRequest>;

beforeAll(async () => {
  fx = await startContractGateway();
  operations = ownerOperations(fx.t);
  requests = new Map(validRequests(fx).map((r) => [r.op, r]));
}, 30_000);
afterAll(() => fx.close());

function validRequest(op: Operation): ValidRequest {
  const request = requests.get(opKey(op));
  if (!request) throw new Error(`no valid request for ${opKey(op)} (requests.ts)`);
  return request;
}

const roleOf = (op: Operation) => op.route["x-required-role"];

describe("roles are declared on the route and enforced from the declaration (D-232)", () => {
  it("declares a role on every owner operation; only signing in is public", () => {
    for (const op of operations) expect(["public", "viewer", "admin"], opKey(op)).toContain(roleOf(op));
    expect(operations.filter((op) => roleOf(op) === "public").map(opKey)).toEqual(["POST /owner/v1/sessions"]);
  });

  it("needs an admin for every operation that is not a GET, except the few that change nothing of the company's", () => {
    const mutations = operations.filter((op) => op.method !== "get" && roleOf(op) !== "public");
    expect(mutations.length).toBeGreaterThan(25);
    for (const op of mutations) expect(roleOf(op), opKey(op)).toBe(VIEWER_MAY.has(opKey(op)) ? "viewer" : "admin");
    for (const op of operations.filter((op) => op.method === "get")) expect(roleOf(op), opKey(op)).toBe("viewer");
  });

  it("answers a viewer 403 forbidden on every admin operation, with its declared error body", async () => {
    const adminOnly = operations.filter((op) => roleOf(op) === "admin");
    expect(adminOnly.length).toBeGreaterThan(20);
    for (const op of adminOnly) {
      const request = validRequest(op);
      const res = await call(fx.t, fx.tokens.viewer, op.method.toUpperCase(), request.path, request.body);
      expect(res.status, `${opKey(op)}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.code).toBe("forbidden");
      expectDeclared(op, 403, res.body);
    }
  });

  it("answers another company's admin 404 not_found on every operation of a path id, as for an unknown id", async () => {
    const withId = operations.filter((op) => op.path.includes("{") && !NOT_A_RESOURCE.has(opKey(op)));
    expect(withId.length).toBeGreaterThan(20);
    for (const op of withId) {
      const request = validRequest(op);
      const res = await call(fx.t, fx.tokens.other, op.method.toUpperCase(), request.path, request.body);
      expect(res.status, `${opKey(op)}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.code).toBe("not_found");
      expectDeclared(op, 404, res.body);
    }
  });

  it("lets a viewer call every GET, and every operation a viewer may call", async () => {
    // Positive control for the 403s above: the viewer's token works, and the same valid requests succeed.
    const viewerOps = operations.filter((op) => roleOf(op) === "viewer" && !opKey(op).startsWith("DELETE"));
    expect(viewerOps.length).toBeGreaterThan(20);
    for (const op of viewerOps) {
      const request = validRequest(op);
      const res = await call(fx.t, fx.tokens.viewer, op.method.toUpperCase(), request.path, request.body);
      expect(res.status, `${opKey(op)}: ${JSON.stringify(res.body)}`).toBe(successStatus(op));
      expectDeclared(op, res.status, res.body, res.headers.get("content-type"));
    }
  });

  it("still lets the company's admin do what the other company and the viewer were refused", async () => {
    // Positive control for the 404s: Acme's own ids are there (a GET of each kind that was refused to Rival).
    for (const key of [
      "GET /owner/v1/submissions/{submissionId}",
      "GET /owner/v1/webhooks/deliveries/{deliveryId}",
      "GET /owner/v1/profiles/{profileId}/versions",
      "GET /owner/v1/keys/{keyId}/payloads",
      "GET /owner/v1/connections/{connectionId}",
    ]) {
      const request = requests.get(key);
      if (!request) throw new Error(key);
      const res = await call(fx.t, fx.tokens.admin, "GET", request.path);
      expect(res.status, key).toBe(200);
    }
  });
});
