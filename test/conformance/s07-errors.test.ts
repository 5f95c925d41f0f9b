import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyKey, newLead } from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
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

  it("every error that applies (400, 401, 403, 404, 409, 413, 415, 429) has the same shape and headers", async () => {
    const general = target.keys.general;
    const lead = await call(target, "POST", "/api/inbound/leads", { key: general, json: newLead() });
    const booking = {
      leadId: (lead.body as { leadId: string }).leadId,
      startsAt: "2026-10-01T15:00:00Z",
      endsAt: "2026-10-01T16:00:00Z",
      idempotencyKey: idempotencyKey(32),
    };
    await call(target, "POST", "/api/inbound/appointments", { key: general, json: booking });

    const replies: Array<[number, Reply]> = [
      [400, await call(target, "POST", "/api/inbound/leads", { key: general, json: newLead({ phone: "call me" }) })],
      [401, await call(target, "GET", "/api/inbound/jobs")],
      [
        403,
        await call(target, "POST", "/api/inbound/appointments", { key: target.keys.generalLeadsOnly, json: booking }),
      ],
      [
        404,
        await call(target, "POST", "/api/inbound/jobs/prj_00000000000000000000/status", {
          key: target.keys.contractor,
          json: { note: "x" },
        }),
      ],
      [
        409,
        await call(target, "POST", "/api/inbound/appointments", {
          key: general,
          json: { ...booking, notes: "changed" },
        }),
      ],
      [
        413,
        await call(target, "POST", "/api/inbound/leads", {
          key: general,
          json: newLead({ padding: "x".repeat(1_048_577) }),
        }),
      ],
      [
        415,
        await call(target, "POST", "/api/inbound/leads", {
          key: general,
          body: "x",
          headers: { "content-type": "text/plain" },
        }),
      ],
    ];
    // Last: exhaust one key's quota (a key this file uses nowhere else).
    let limited = await call(target, "GET", "/api/inbound/jobs", {
      key: target.keys.contractorReadOnly,
      retry429: false,
    });
    for (let i = 0; limited.status !== 429 && i < 3000; i++) {
      limited = await call(target, "GET", "/api/inbound/jobs", {
        key: target.keys.contractorReadOnly,
        retry429: false,
      });
    }
    replies.push([429, limited]);

    for (const [status, reply] of replies) {
      expect(reply.status, reply.text).toBe(status);
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
      expect(errorMessage(reply)).toMatch(/\S/);
      expect(reply.headers.get("x-request-id")).toMatch(/\S/);
      expect(reply.headers.get("x-svc-api-version")).toBe("2026-08-26");
    }
    expect(limited.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
  });
});
