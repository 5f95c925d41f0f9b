import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../../src/http/error-codes.js";
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
import { validRequests } from "./requests.js";

let fx: ContractGateway;
let operations: Map<string, Operation>;

beforeAll(async () => {
  fx = await startContractGateway();
  operations = new Map(ownerOperations(fx.t).map((op) => [opKey(op), op]));
}, 30_000);
afterAll(() => fx.close());

function operation(key: string): Operation {
  const op = operations.get(key);
  if (!op) throw new Error(`${key} is not in the registry`);
  return op;
}

/** An error answer as D-231 has it: declared for its status, its code of that status, the request's id. */
function expectError(op: Operation, res: Awaited<ReturnType<typeof call>>, code: ErrorCode): void {
  expect(res.body.code, `${opKey(op)}: ${JSON.stringify(res.body)}`).toBe(code);
  expect(ERROR_CODES[code].status).toBe(res.status);
  expect(res.body.requestId).toBe(res.headers.get("x-request-id"));
  expect(typeof res.body.error).toBe("string");
  expectDeclared(op, res.status, res.body, res.headers.get("content-type"));
}

const ownPath = (op: Operation) => op.path.replace("/owner/v1", "").replace(/\{\w+\}/g, "x");

describe("every owner operation answers what it declares (D-230, D-231)", () => {
  it("has a valid request in the suite's table for every operation of the registry, once", () => {
    const table = validRequests(fx).map((r) => r.op);
    expect(new Set(table).size).toBe(table.length);
    expect([...table].sort()).toEqual([...operations.keys()].sort());
  });

  it("answers each valid request with its declared success status and exactly its declared shape", async () => {
    for (const request of validRequests(fx)) {
      const op = operation(request.op);
      const token = request.as === "none" ? undefined : request.as === "signOut" ? fx.signOutToken : fx.tokens.admin;
      const res = await call(fx.t, token, op.method.toUpperCase(), request.path, request.body);
      expect(res.status, `${request.op}: ${JSON.stringify(res.body)}`).toBe(successStatus(op));
      expectDeclared(op, res.status, res.body, res.headers.get("content-type"));
    }
  });

  it("answers a request without a session 401 unauthorized (a wrong password when signing in)", async () => {
    for (const op of operations.values()) {
      const signIn = op.route["x-required-role"] === "public";
      const body = signIn ? { email: fx.acme.email, password: "not the password" } : undefined;
      const res = await call(fx.t, undefined, op.method.toUpperCase(), ownPath(op), body);
      expect(res.status, opKey(op)).toBe(401);
      expectError(op, res, "unauthorized");
    }
  });

  it("answers a body of the wrong shape 400 bad_request, naming nothing it should not", async () => {
    const withBody = [...operations.values()].filter((op) => op.route.request?.body);
    expect(withBody.length).toBeGreaterThan(20);
    for (const op of withBody) {
      const token = op.route["x-required-role"] === "public" ? undefined : fx.tokens.admin;
      const res = await call(fx.t, token, op.method.toUpperCase(), ownPath(op), []);
      expect(res.status, `${opKey(op)}: ${JSON.stringify(res.body)}`).toBe(400);
      expectError(op, res, "bad_request");
    }
  });

  it("answers a path id past its bound 400 bad_request with the parameter named", async () => {
    const withId = [...operations.values()].filter((op) => op.path.includes("{"));
    for (const op of withId) {
      const path = op.path.replace("/owner/v1", "").replace(/\{\w+\}/g, "x".repeat(101));
      const res = await call(
        fx.t,
        fx.tokens.admin,
        op.method.toUpperCase(),
        path,
        op.route.request?.body ? {} : undefined,
      );
      expect(res.status, `${opKey(op)}: ${JSON.stringify(res.body)}`).toBe(400);
      expectError(op, res, "bad_request");
      expect(String(res.body.field)).toMatch(/^param\./);
    }
  });

  it("answers an unknown owner path 404 not_found with the code and the request id", async () => {
    const res = await call(fx.t, fx.tokens.admin, "GET", "/no-such-thing");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not found", code: "not_found", requestId: res.headers.get("x-request-id") });
  });

  it("keeps intake's error body §7's exactly: no code, no request id in it", async () => {
    const res = await fetch(`${fx.t.url}/api/inbound/leads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(401);
    expect(Object.keys((await res.json()) as object)).toEqual(["error"]);
  });
});
