import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { createSandbox, DEFAULT_SEED_PATH, SeedError } from "../../src/sandbox/index.js";
import { lead, newSandbox, send } from "./support.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("§1 test environment: state", () => {
  it("state kept in a file survives a restart", async () => {
    const dbPath = join(tempDir(), "sandbox.db");
    const first = newSandbox({ dbPath });
    const created = await send(first.app, "POST", "/api/inbound/leads", {
      key: first.key("sunrise-general"),
      json: lead("1 Durable Drive, Phoenix, AZ 85004"),
    });
    first.close();

    const second = newSandbox({ dbPath });
    const again = await send(second.app, "POST", "/api/inbound/leads", {
      key: second.key("sunrise-general"),
      json: lead("1 Durable Drive, Phoenix, AZ 85004"),
    });
    expect(again.body).toEqual({ status: "merged", leadId: created.body.leadId });
    second.close();
  });

  it("in-memory state starts from the seed every time", async () => {
    const a = newSandbox();
    await send(a.app, "POST", "/api/inbound/leads", {
      key: a.key("sunrise-general"),
      json: lead("2 Fresh St, Phoenix, AZ 85004"),
    });
    expect(a.admin.stats().leads.count).toBe(6);
    a.close();
    const b = newSandbox();
    expect(b.admin.stats().leads.count).toBe(5);
    b.close();
  });
});

describe("§1 test environment: seed files", () => {
  it("loads a seed given by path, and its keys are the test keys", async () => {
    const path = join(tempDir(), "seed.json");
    writeFileSync(
      path,
      JSON.stringify({
        companies: [
          {
            id: "org_tiny",
            name: "Tiny Co",
            people: [{ id: "per_tiny", name: "Tia", email: "tia@tiny.example" }],
            keys: [
              {
                name: "tiny-general",
                kind: "general",
                keyId: "svc_test_TINYgen01",
                secret: "tiny_secret_000000001",
                personId: "per_tiny",
              },
            ],
          },
        ],
      }),
    );
    const sandbox = newSandbox({ seedPath: path });
    expect(sandbox.testKeys).toEqual([
      {
        name: "tiny-general",
        kind: "general",
        companyId: "org_tiny",
        key: "svc_test_TINYgen01.tiny_secret_000000001",
        scopes: ["leads:write", "appointments:write"],
        revoked: false,
      },
    ]);
    const reply = await send(sandbox.app, "POST", "/api/inbound/leads", {
      key: sandbox.key("tiny-general"),
      json: lead("3 Tiny Lane, Phoenix, AZ 85004"),
    });
    expect(reply.status).toBe(201);
    sandbox.close();
  });

  it("the default seed has at least two companies and every key kind, a key lacking a scope and a revoked key", () => {
    const sandbox = newSandbox({ seedPath: DEFAULT_SEED_PATH });
    const keys = sandbox.testKeys;
    expect(new Set(keys.map((k) => k.companyId)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(keys.map((k) => k.kind))).toEqual(new Set(["general", "installer-contractor", "installer-company"]));
    expect(keys.some((k) => k.kind === "general" && !k.scopes.includes("appointments:write"))).toBe(true);
    expect(keys.some((k) => k.revoked)).toBe(true);
    sandbox.close();
  });

  it.each([
    ["a live key", { keyId: "svc_live_LIVEgen01", secret: "live_secret_0000000001" }, /svc_test_/],
    ["a general key without a person", { personId: undefined }, /person/],
    ["a person of another company", { personId: "per_elsewhere" }, /not one of its own/],
  ])("refuses a seed with %s, naming the problem", (_name, change, message) => {
    const path = join(tempDir(), "bad.json");
    const key = {
      name: "k",
      kind: "general",
      keyId: "svc_test_BADgen001",
      secret: "bad_secret_00000000001",
      personId: "per_bad",
      ...change,
    };
    writeFileSync(
      path,
      JSON.stringify({
        companies: [
          { id: "org_bad", name: "Bad", people: [{ id: "per_bad", name: "B", email: "b@bad.example" }], keys: [key] },
        ],
      }),
    );
    expect(() => createSandbox({ seedPath: path })).toThrow(message);
  });

  it("refuses a seed file that is not JSON with a SeedError naming the file", () => {
    const path = join(tempDir(), "broken.json");
    writeFileSync(path, "{");
    expect(() => createSandbox({ seedPath: path })).toThrow(SeedError);
    expect(() => createSandbox({ seedPath: path })).toThrow(path);
  });
});

describe("§5.9 keys in logs", () => {
  it("the request log names a key by its first 14 characters only, and never logs a secret", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const sandbox = newSandbox({
      log: createLogger({ destination, level: "info" }),
      adminToken: "admin-token-never-logged-0001",
    });
    const key = sandbox.key("sunrise-general");
    await send(sandbox.app, "POST", "/api/inbound/leads", { key, json: lead("4 Log Lane, Phoenix, AZ 85004") });
    await send(sandbox.app, "POST", "/api/inbound/leads", {
      key: `${key}x`,
      json: lead("4 Log Lane, Phoenix, AZ 85004"),
    });
    await send(sandbox.app, "GET", "/sandbox/admin/stats", { token: "admin-token-never-logged-0001" });
    const log = lines.join("");
    expect(log).toContain('"key":"svc_test_SUNgn"');
    expect(log).not.toContain("test_secret_sunrise_general_01");
    expect(log).not.toContain("svc_test_SUNgn0");
    expect(log).not.toContain("admin-token-never-logged");
    sandbox.close();
  });
});
