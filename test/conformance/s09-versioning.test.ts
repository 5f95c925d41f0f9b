import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newLead } from "./support/fixtures.js";
import { call } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(() => target.close());

describe("§9 Versioning", () => {
  it("a success carries x-svc-api-version: 2026-08-26 (§9.1)", async () => {
    const reply = await call(target, "POST", "/api/inbound/leads", { key: target.keys.general, json: newLead() });
    expect(reply.status).toBe(201);
    expect(reply.headers.get("x-svc-api-version")).toBe("2026-08-26");
  });

  it("errors carry it too: 400, 401, 403, 404, 415", async () => {
    const replies = [
      await call(target, "POST", "/api/inbound/leads", { key: target.keys.general, json: {} }),
      await call(target, "GET", "/api/inbound/jobs"),
      await call(target, "POST", "/api/inbound/jobs/prj_x/status", {
        key: target.keys.contractorReadOnly,
        json: { note: "x" },
      }),
      await call(target, "POST", "/api/inbound/jobs/prj_unknown/status", {
        key: target.keys.contractor,
        json: { note: "x" },
      }),
      await call(target, "POST", "/api/inbound/leads", {
        key: target.keys.general,
        body: "x",
        headers: { "content-type": "text/plain" },
      }),
    ];
    expect(replies.map((r) => r.status)).toEqual([400, 401, 403, 404, 415]);
    for (const reply of replies) expect(reply.headers.get("x-svc-api-version")).toBe("2026-08-26");
  });
});
