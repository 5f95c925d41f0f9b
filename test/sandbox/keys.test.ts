import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lead, newSandbox, send } from "./support.js";

let sandbox: ReturnType<typeof newSandbox>;
beforeEach(() => {
  sandbox = newSandbox();
});
afterEach(() => sandbox.close());

const postLead = (key: string | undefined) =>
  send(sandbox.app, "POST", "/api/inbound/leads", { key, json: lead("1 Key Street, Phoenix, AZ 85004") });

describe("§5 keys in the sandbox", () => {
  it("a svc_live_ key is never accepted by the test environment (§5.2)", async () => {
    const [, secret] = sandbox.key("sunrise-general").split(".");
    const reply = await postLead(`svc_live_SUNgn0001.${secret}`);
    expect(reply.status).toBe(401);
  });

  it("malformed, unknown, wrong-secret and revoked keys get one and the same 401 message", async () => {
    const [keyId] = sandbox.key("sunrise-general").split(".");
    const replies = await Promise.all(
      [
        "garbage",
        "svc_test_NOSUCHKEY01.aaaaaaaaaaaaaaaaaaaa",
        `${keyId}.wrong_secret_wrong_secret`,
        sandbox.key("sunrise-revoked"),
      ].map(postLead),
    );
    expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    expect(new Set(replies.map((r) => r.body.error)).size).toBe(1);
    expect((await postLead(undefined)).body.error).toBe("missing x-api-key header");
  });

  it("the kind is checked before the scope: a wrong-kind key is 401 even when it also lacks the scope", async () => {
    const reply = await postLead(sandbox.key("sunrise-crew-a-read-only"));
    expect(reply).toMatchObject({ status: 401, body: { error: "this endpoint accepts general keys only" } });
  });

  it("a 403 names the scope in the message and in a scope field", async () => {
    const reply = await send(sandbox.app, "POST", "/api/inbound/appointments", {
      key: sandbox.key("sunrise-leads-only"),
      json: {},
    });
    expect(reply).toMatchObject({
      status: 403,
      body: { error: "key lacks the scope appointments:write", scope: "appointments:write" },
    });
  });

  it("authentication and limits come before the body is read: a 401 for a malformed body without a key", async () => {
    const res = await sandbox.app.request("/api/inbound/leads", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(res.status).toBe(401);
  });
});
