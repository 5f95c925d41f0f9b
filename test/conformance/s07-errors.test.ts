import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newLead } from "./support/fixtures.js";
import { call, errorMessage } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(() => target.close());

/**
 * §7 error contract. 400/401/403/404/409/429 are produced where their rules live (§2.x, §5, §8 files); here: the
 * shape every error shares, the request id, and the body rules of §8 (size, type, malformed JSON). 422 has no
 * Inbound API trigger (it belongs to the Installer API's transitions, §3.1).
 */
describe("§7 Errors", () => {
  it("an error is a JSON object {error: string} with x-request-id", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", { key: target.keys.general, json: {} });
    expect(reply.status).toBe(400);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(typeof errorMessage(reply)).toBe("string");
    expect(reply.headers.get("x-request-id")).toMatch(/\S/);
  });

  it("every response carries x-request-id, success included", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", { key: target.keys.general, json: newLead() });
    expect(reply.status).toBe(201);
    expect(reply.headers.get("x-request-id")).toMatch(/\S/);
  });

  it("request ids differ between requests", async () => {
    const a = await call(target, "GET", "/api/inbound/jobs", { key: target.keys.contractor });
    const b = await call(target, "GET", "/api/inbound/jobs", { key: target.keys.contractor });
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  it("a body over 1 MB is refused with 413 (§8 request body)", async () => {
    const padding = "x".repeat(1_048_577);
    const reply = await call(target, "POST", "/api/inbound/leads", {
      key: target.keys.general,
      json: newLead({ padding }),
    });
    expect(reply.status).toBe(413);
    expect(errorMessage(reply)).not.toBe("");
  });

  it("a body under 1 MB is not refused for its size", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", {
      key: target.keys.general,
      json: newLead({ padding: "x".repeat(900_000) }),
    });
    expect(reply.status).not.toBe(413);
    expect(reply.status).toBeLessThan(500);
  });

  it("a body that is not JSON is refused with 415 (bodies are JSON, §4)", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", {
      key: target.keys.general,
      body: "fullName=Jordan",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(reply.status).toBe(415);
    expect(errorMessage(reply)).not.toBe("");
  });

  it("malformed JSON is 400", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", {
      key: target.keys.general,
      body: '{"fullName": "Jordan",',
      headers: { "content-type": "application/json" },
    });
    expect(reply.status).toBe(400);
    expect(errorMessage(reply)).not.toBe("");
  });

  it("a 400 message names the offending field", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", {
      key: target.keys.general,
      json: newLead({ email: "not-an-email" }),
    });
    expect(reply.status).toBe(400);
    expect(errorMessage(reply)).toContain("email");
  });
});
