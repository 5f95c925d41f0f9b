import { randomBytes } from "node:crypto";
import type { StoredSample } from "../../src/db/schema/profile-versions.js";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey, type VendorKeyInput } from "../../src/gateway/keys/vendor-keys.js";
import { createProfile, publishProfileVersion, saveProfileVersion } from "../../src/gateway/profiles-admin/profiles.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { loopbackWebhookPorts } from "../../src/gateway/webhooks/loopback-ports.js";
import { listen, type RunningServer } from "../../src/http/server.js";
import { captureLog } from "./log-capture.js";
import { testStorage } from "./test-store.js";

export const OWNER_PASSWORD = "correct horse battery staple";

/** Owner passwords hashed at a tenth of a millisecond instead of OWASP's few hundred (the cost is a setting). */
export const TEST_PASSWORD_COST = { N: 2 ** 10, r: 8, p: 1 };

export interface TestGateway {
  gateway: Gateway;
  server: RunningServer;
  url: string;
  logText: () => string;
  close(): Promise<void>;
}

/** A real gateway on an in-memory database, listening on a free port. */
export async function startTestGateway(
  settings: GatewayOptions["settings"] = {},
  options: Partial<
    Pick<
      GatewayOptions,
      "databasePath" | "masterKey" | "engine" | "webhooks" | "now" | "presetsDir" | "fetcher" | "suggest" | "alerts"
    >
  > = {},
): Promise<TestGateway> {
  const { log, text } = captureLog();
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const gateway = await createGateway({
    masterKey: randomBytes(32).toString("hex"),
    engine: { poolSize: 2 },
    ...given,
    // TEST_STORE=postgres: the same path on a database of its own (test-store.ts).
    ...(await testStorage(options.databasePath ?? ":memory:")),
    log,
    // Listening on 127.0.0.1 (below), as `serve` derives it from HOST: webhooks may reach any local port.
    settings: {
      passwordCost: TEST_PASSWORD_COST,
      webhookLoopbackPorts: loopbackWebhookPorts("127.0.0.1", []),
      ...settings,
    },
  });
  const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
  // Hook URLs on the address it listens on (PUBLIC_URL, which `serve` derives from HOST and PORT).
  if (settings.publicUrl === undefined) gateway.ctx.settings.publicUrl = server.url;
  return {
    gateway,
    server,
    url: server.url,
    logText: text,
    async close() {
      await server.close();
      await gateway.close();
    },
  };
}

let counter = 0;

/** A company with an admin owner, one upstream credential and helpers to issue keys and profiles. */
export async function seedCompany(gw: Gateway, name = `Company ${++counter}`) {
  const { ctx } = gw;
  const company = await createCompany({ ctx, input: { name } });
  const email = `owner-${randomBytes(4).toString("hex")}@example.test`;
  const owner = await createOwner({
    ctx,
    input: { companyId: company.id, email, name: "Owner", role: "admin", password: OWNER_PASSWORD },
  });
  const credential = await createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: {
      name: "general",
      value: `svc_test_upstream${randomBytes(4).toString("hex")}.${randomBytes(24).toString("base64url")}`,
    },
  });
  return {
    company,
    owner,
    email,
    credential,
    async issueKey(input: Partial<VendorKeyInput> = {}) {
      return await createVendorKey({
        ctx,
        companyId: company.id,
        input: {
          name: "vendor",
          partnerType: "lead_source",
          scopes: ["leads:write", "appointments:write"],
          credentialId: credential.id,
          ...input,
        },
      });
    },
    async publishProfile(kind: "lead" | "appointment", expression: string, samples: StoredSample[]) {
      const profile = await createProfile({ ctx, companyId: company.id, input: { name: `p-${++counter}`, kind } });
      const saved = await saveProfileVersion({
        ctx,
        companyId: company.id,
        profileId: profile.id,
        input: { expression, samples },
      });
      const version = await publishProfileVersion({ ctx, companyId: company.id, versionId: saved.version.id });
      return { profile, version };
    },
  };
}

/** POST JSON with an API key. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}
