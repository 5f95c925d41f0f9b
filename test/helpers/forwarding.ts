import { randomBytes } from "node:crypto";
import { createGateway, type Gateway } from "../../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../../src/gateway/credentials/upstream-credentials.js";
import type { ForwardingLimits } from "../../src/gateway/forwarding/limits.js";
import type { RetryPolicy } from "../../src/gateway/forwarding/retry-policy.js";
import { createVendorKey } from "../../src/gateway/keys/vendor-keys.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { listen, type RunningServer } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/index.js";

export interface RigOptions {
  /** Limits per window, the same at the sandbox (the referee) and in the gateway. */
  perKey: number;
  perCompany: number;
  egress: number;
  windowMs: number;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  databasePath?: string;
}

export interface RigCompany {
  gatewayCompanyId: string;
  sandboxCompanyId: string;
  sandboxPersonId: string | undefined;
  credentials: { id: string; upstreamKey: string }[];
  vendorKeys: string[];
}

/**
 * The sandbox as the upstream (the referee, with exact limits) and a gateway forwarding to it, both listening on
 * free ports. Companies and credentials are made on both sides.
 */
export async function startRig(options: RigOptions) {
  const windowMs = options.windowMs;
  const sandbox: RunningSandbox = await startSandbox({
    host: "127.0.0.1",
    port: 0,
    log: createLogger({ level: "silent" }),
    limits: {
      key: { limit: options.perKey, windowMs },
      owner: { limit: options.perCompany, windowMs },
      ip: { limit: options.egress, windowMs },
    },
  });
  const limits: ForwardingLimits = {
    perCredential: { limit: options.perKey, windowMs },
    perCompany: { limit: options.perCompany, windowMs },
    egress: { limit: options.egress, windowMs },
    marginMs: 1,
  };
  const gateway: Gateway = createGateway({
    databasePath: options.databasePath ?? ":memory:",
    log: createLogger({ level: "silent" }),
    masterKey: randomBytes(32).toString("hex"),
    settings: { intakeLimit: { ratePerSecond: 100_000, burst: 100_000 } },
    forwarding: {
      upstreamUrl: sandbox.url,
      limits,
      retry: { baseMs: 50, capMs: 200, maxAttempts: 4, horizonMs: 60_000, ...options.retry },
      timeoutMs: options.timeoutMs ?? 2_000,
    },
  });
  const server: RunningServer = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
  const { ctx } = gateway;

  return {
    sandbox,
    gateway,
    url: server.url,
    /** A company on both sides, with `credentials` upstream keys and one canonical vendor key per credential. */
    addCompany(name: string, credentials = 1): RigCompany {
      const upstream = sandbox.admin.createCompany({
        name,
        kind: "company",
        people: [{ name: `${name} rep`, email: `rep@${name.toLowerCase().replaceAll(" ", "-")}.test` }],
        contractors: [],
      });
      const personId = upstream.people[0]?.id;
      const company = createCompany({ ctx, input: { name } });
      const result: RigCompany = {
        gatewayCompanyId: company.id,
        sandboxCompanyId: upstream.id,
        sandboxPersonId: personId,
        credentials: [],
        vendorKeys: [],
      };
      for (let i = 0; i < credentials; i++) {
        const key = sandbox.admin.createKey({ companyId: upstream.id, kind: "general", personId });
        const credential = createUpstreamCredential({
          ctx,
          companyId: company.id,
          input: { name: `general-${i}`, value: key.key },
        });
        result.credentials.push({ id: credential.id, upstreamKey: key.key });
        const vendor = createVendorKey({
          ctx,
          companyId: company.id,
          input: {
            name: `vendor-${i}`,
            partnerType: "booking_vendor",
            scopes: ["leads:write", "appointments:write"],
            credentialId: credential.id,
          },
        });
        result.vendorKeys.push(vendor.key);
      }
      return result;
    },
    async close() {
      await server.close();
      await gateway.close(1_000);
      await sandbox.close();
    },
  };
}

export type Rig = Awaited<ReturnType<typeof startRig>>;

let sequence = 0;

/** A valid canonical lead at a unique address (so the sandbox creates rather than merges). */
export function lead(overrides: Record<string, unknown> = {}) {
  const n = ++sequence;
  return {
    fullName: `Customer ${n}`,
    email: `customer${n}@example.com`,
    phone: "+1 555 010 0000",
    address: `${n} Test Street, Springfield, IL 62701`,
    ...overrides,
  };
}

export async function until<T>(probe: () => T | undefined | false, timeoutMs = 15_000, stepMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
