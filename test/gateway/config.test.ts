import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SHIPPED_PRESETS } from "../../src/cli/serve.js";
import { ConfigError } from "../../src/config.js";
import { applyConfig } from "../../src/gateway/config/apply-config.js";
import { checkLiveConfig, loadConfigFile } from "../../src/gateway/config/config-file.js";
import { openSecrets } from "../../src/gateway/connections/connection-secrets.js";
import { digestHookToken } from "../../src/gateway/connections/hook-token.js";
import { createGateway, type Gateway } from "../../src/gateway/create-gateway.js";
import { createLogger } from "../../src/log.js";
import { TEST_PASSWORD_COST } from "../helpers/gateway.js";
import { sqliteOf, sqlOf } from "../helpers/sqlite-of.js";

const DEMO = join(process.cwd(), "config/demo.yaml");
let gateways: Gateway[] = [];
afterEach(async () => {
  for (const g of gateways) await g.close();
  gateways = [];
});

async function gateway(mode: "sandbox" | "live" = "sandbox", databasePath = ":memory:") {
  const g = await createGateway({
    databasePath,
    log: createLogger({ level: "silent" }),
    masterKey: randomBytes(32).toString("hex"),
    settings: { mode, passwordCost: TEST_PASSWORD_COST },
    // The demo config connects a vendor through a preset (docs/connections.md).
    presetsDir: SHIPPED_PRESETS,
  });
  gateways.push(g);
  return g;
}

const rowsOf = (g: Gateway, table: string) =>
  (sqliteOf(g).sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

const counts = (g: Gateway) => ({
  companies: rowsOf(g, "companies"),
  owners: rowsOf(g, "owners"),
  credentials: rowsOf(g, "upstream_credentials"),
  keys: rowsOf(g, "vendor_keys"),
  versions: rowsOf(g, "profile_versions"),
  connections: rowsOf(g, "connections"),
});

describe("config file: applied idempotently at start", () => {
  it("applies the demo config, and applying it again changes nothing", async () => {
    const g = await gateway();
    const loaded = await loadConfigFile(DEMO);
    await applyConfig({ ctx: g.ctx, loaded, env: {} });
    const first = counts(g);
    // The Angi connection brings its own vendor key and its preset's profile version.
    expect(first).toEqual({ companies: 1, owners: 1, credentials: 1, keys: 5, versions: 6, connections: 1 });
    await applyConfig({ ctx: g.ctx, loaded, env: {} });
    expect(counts(g)).toEqual(first);
  });

  it("rotates a credential whose value changed and re-binds an existing key", async () => {
    const g = await gateway();
    const loaded = await loadConfigFile(DEMO);
    await applyConfig({ ctx: g.ctx, loaded, env: {} });
    const dir = mkdtempSync(join(tmpdir(), "pg-config-"));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        companies: [
          {
            id: "sunrise",
            name: "Sunrise Solar Co.",
            credentials: [{ name: "sunrise-general", value: "svc_test_SUNgn0001.test_secret_sunrise_general_02" }],
            vendorKeys: [
              {
                name: "Canonical client",
                partnerType: "lead_source",
                scopes: ["leads:write"],
                credential: "sunrise-general",
                key: "svc_test_democanonical01.demo_secret_canonical_000001",
              },
            ],
          },
        ],
      }),
    );
    await applyConfig({ ctx: g.ctx, loaded: await loadConfigFile(join(dir, "config.json")), env: {} });
    const credential = await sqlOf(g).selectFrom("upstreamCredentials").selectAll().executeTakeFirst();
    expect(credential?.version).toBe(2);
    const key = (await sqlOf(g).selectFrom("vendorKeys").selectAll().execute()).find(
      (k) => k.id === "svc_test_democanonical01",
    );
    expect(key?.scopes).toEqual(["leads:write"]);
  });

  it("keeps a connection as the file says: made once, its secret rotated, its fixed hook token answering (docs/connections.md)", async () => {
    const g = await gateway();
    const token = "hk_configTestAngi00000000000000000000000000001";
    const file = (apiKey: string) => {
      const dir = mkdtempSync(join(tmpdir(), "pg-config-"));
      writeFileSync(
        join(dir, "config.json"),
        JSON.stringify({
          companies: [
            {
              id: "acme",
              name: "Acme",
              credentials: [{ name: "general", value: "svc_test_ACMEgn001.test_secret_acme_general_0001" }],
              connections: [
                {
                  name: "Angi",
                  preset: "angi",
                  credential: "general",
                  secrets: { apiKey: { value: apiKey } },
                  hookToken: token,
                },
              ],
            },
          ],
        }),
      );
      return join(dir, "config.json");
    };
    await applyConfig({ ctx: g.ctx, loaded: await loadConfigFile(file("first-angi-key")), env: {} });
    await applyConfig({ ctx: g.ctx, loaded: await loadConfigFile(file("second-angi-key")), env: {} });
    expect(counts(g).connections).toBe(1);
    const [connection] = await g.ctx.connections.listOfCompany("co_acme");
    const found = await g.ctx.connections.findByToken(digestHookToken(token));
    expect(found?.id).toBe(connection?.id);
    // The second file's key is the one the connection checks now.
    const opened = openSecrets(g.ctx.sealer, connection?.id ?? "", found?.sealedSecrets ?? "");
    expect(opened.get("apiKey")).toBe("second-angi-key");
  });

  it("refuses a fixed hook token or a literal vendor secret in live mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-config-"));
    writeFileSync(
      join(dir, "live.json"),
      JSON.stringify({
        mode: "live",
        companies: [
          {
            id: "acme",
            name: "Acme",
            connections: [
              { name: "Angi", preset: "angi", credential: "c", secrets: { apiKey: { value: "k" } }, hookToken: "hk_x" },
            ],
          },
        ],
      }),
    );
    const loaded = await loadConfigFile(join(dir, "live.json"));
    expect(() => checkLiveConfig(loaded.config, "live.json")).toThrow(
      /connections\.0\.hookToken.*\n.*secrets\.apiKey/s,
    );
  });

  it("names the path of every problem in a bad file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-config-"));
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "companies:\n  - id: Not A Slug\n    name: ''\n");
    await expect(loadConfigFile(file)).rejects.toThrow(/companies\.0\.id: .*\n.*companies\.0\.name/s);
  });

  it("resolves secrets from the environment variables the file names, and says which one is missing", async () => {
    const g = await gateway();
    const dir = mkdtempSync(join(tmpdir(), "pg-config-"));
    const file = join(dir, "env.json");
    writeFileSync(
      file,
      JSON.stringify({ companies: [{ id: "acme", name: "Acme", credentials: [{ name: "c", valueEnv: "ACME_KEY" }] }] }),
    );
    const loaded = await loadConfigFile(file);
    await expect(applyConfig({ ctx: g.ctx, loaded, env: {} })).rejects.toThrow(/ACME_KEY is not set/);
    await applyConfig({ ctx: g.ctx, loaded, env: { ACME_KEY: "svc_test_acmekey01.secret_value_0000000001" } });
    expect(counts(g).credentials).toBe(1);
  });
});

describe("live mode refuses sandbox-only settings", () => {
  it("lists every literal secret in the file", async () => {
    const loaded = await loadConfigFile(DEMO);
    try {
      checkLiveConfig(loaded.config, loaded.source);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(/owners\.0\.password: use passwordEnv/);
      expect(message).toMatch(/credentials\.0\.value: use valueEnv/);
      expect(message).toMatch(/vendorKeys\.0\.key: fixed keys are for sandbox mode/);
    }
  });

  it("refuses svc_test_ upstream credentials and vendor keys in live mode", async () => {
    const g = await gateway("live");
    const dir = mkdtempSync(join(tmpdir(), "pg-config-"));
    const file = join(dir, "live.json");
    writeFileSync(
      file,
      JSON.stringify({
        mode: "live",
        companies: [{ id: "acme", name: "Acme", credentials: [{ name: "c", valueEnv: "K" }] }],
      }),
    );
    const loaded = await loadConfigFile(file);
    await expect(
      applyConfig({ ctx: g.ctx, loaded, env: { K: "svc_test_acmekey01.secret_value_0000000001" } }),
    ).rejects.toThrow(/svc_live_/);
  });
});

describe("§5.9 upstream credentials are sealed at rest", () => {
  it("stores no credential value in the database file, only its first 14 characters", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-seal-"));
    const path = join(dir, "gateway.db");
    const g = await gateway("sandbox", path);
    await applyConfig({ ctx: g.ctx, loaded: await loadConfigFile(DEMO), env: {} });
    sqliteOf(g).sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const { existsSync, readFileSync } = await import("node:fs");
    // The checkpoint may find a reader (the background checkpointer) and leave pages in the WAL: read both files.
    const files = [path, `${path}-wal`].filter((file) => existsSync(file));
    const bytes = files.map((file) => readFileSync(file).toString("latin1")).join("");
    expect(bytes).not.toContain("test_secret_sunrise_general_01");
    expect(bytes).toContain("svc_test_SUNgn");
    expect(bytes).not.toContain("sunrise-demo-password");
  });
});
