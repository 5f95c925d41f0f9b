import { z } from "zod";
import { createLogger } from "../../../src/log.js";
import { type LimitsOverride, startSandbox } from "../../../src/sandbox/index.js";

/**
 * What the suite runs against. By default a sandbox started in-process on a free port with the default seed; with
 * `CONFORMANCE_BASE_URL` set, any deployment of the test environment, given its keys in `CONFORMANCE_KEYS` and
 * fixtures in `CONFORMANCE_FIXTURES` (JSON; see docs/sandbox.md). Tests that drive the company's side of install jobs
 * need the sandbox's admin API: always there locally, on a remote sandbox when `CONFORMANCE_ADMIN_TOKEN` is set.
 */
const keySetSchema = z.object({
  /** General key with leads:write and appointments:write. */
  general: z.string(),
  /** General key of the same owner with leads:write only. */
  generalLeadsOnly: z.string(),
  revoked: z.string(),
  /** Installer-contractor key with jobs:read and jobs:status:write. */
  contractor: z.string(),
  /** Installer-contractor key of the same record with jobs:read only. */
  contractorReadOnly: z.string(),
  /** Installer-contractor key of another contractor record. */
  otherContractor: z.string(),
  /** General key of another company. */
  otherCompanyGeneral: z.string(),
  /** Installer-company key with the five Installer API scopes (§5.4). */
  installerCompany: z.string(),
  /** Installer-company key of the same company with jobs:read only. */
  installerCompanyReadOnly: z.string(),
  /** Installer-company key of another installer company, with jobs of its own (§5.6). */
  otherInstallerCompany: z.string(),
  /** More leads:write keys of `general`'s owner, enough to exceed the owner limit together (§8). */
  sameOwnerKeys: z.array(z.string()).default([]),
});
export type KeySet = z.infer<typeof keySetSchema>;

const fixturesSchema = z.object({
  /** Full address of a sold project of `general`'s company. */
  soldProjectAddress: z.string(),
  soldProjectId: z.string(),
  /** A project of the other company (404 for `general`). */
  otherCompanyProjectId: z.string(),
  /** The owner of `installerCompany`, and of `otherInstallerCompany` (org_ ids). */
  installerCompanyId: z.string(),
  otherInstallerCompanyId: z.string(),
  /** The company whose install jobs the company's side creates (`general`'s company). */
  installJobCompanyId: z.string(),
});
export type Fixtures = z.infer<typeof fixturesSchema>;

export interface Target {
  baseUrl: string;
  keys: KeySet;
  fixtures: Fixtures;
  /** True when pointed at a deployment by env: 429s are waited out, windows are not reset. */
  remote: boolean;
  /** The sandbox admin API's bearer token, for the company's side of install jobs; absent on a remote target without one. */
  adminToken: string | undefined;
  /** Starts every rate-limit window afresh (local: admin API; remote: waits one window). */
  restartWindows(windowMs: number): Promise<void>;
  close(): Promise<void>;
}

const SEED_FIXTURES: Fixtures = {
  soldProjectAddress: "100 Sunset Boulevard, Phoenix, AZ 85004",
  soldProjectId: "prj_sunrise_0100",
  otherCompanyProjectId: "prj_brightline_3001",
  installerCompanyId: "org_voltworks",
  otherInstallerCompanyId: "org_crestline",
  installJobCompanyId: "org_sunrise",
};

/** Whether this run can drive the company's side (the sandbox admin API): decided before tests are collected. */
export const HAS_COMPANY_SIDE = !process.env.CONFORMANCE_BASE_URL || Boolean(process.env.CONFORMANCE_ADMIN_TOKEN);

const LOCAL_ADMIN_TOKEN = "conformance-admin-token-0001";

function fromEnv(name: string): unknown {
  const raw = process.env[name];
  if (!raw) throw new Error(`${name} must be set (JSON) when CONFORMANCE_BASE_URL is set`);
  return JSON.parse(raw);
}

/** Local runs may pass per-second limits (§8 tests); a remote target's limits are its own. */
export async function openTarget(options: { limits?: LimitsOverride } = {}): Promise<Target> {
  const baseUrl = process.env.CONFORMANCE_BASE_URL;
  if (baseUrl) {
    return {
      baseUrl: baseUrl.replace(/\/$/, ""),
      keys: keySetSchema.parse(fromEnv("CONFORMANCE_KEYS")),
      fixtures: fixturesSchema.parse(fromEnv("CONFORMANCE_FIXTURES")),
      remote: true,
      adminToken: process.env.CONFORMANCE_ADMIN_TOKEN,
      // A remote target's limiter cannot be reset: its windows restart only by time passing (§8 sliding windows).
      restartWindows: (windowMs) => new Promise((resolve) => setTimeout(resolve, windowMs + 50)),
      close: async () => {},
    };
  }

  const sandbox = await startSandbox({
    host: "127.0.0.1",
    port: 0,
    log: createLogger({ level: "silent" }),
    limits: options.limits,
    adminToken: LOCAL_ADMIN_TOKEN,
  });
  const key = (name: string) => {
    const found = sandbox.testKeys.find((k) => k.name === name);
    if (!found) throw new Error(`seed has no key ${name}`);
    return found.key;
  };
  return {
    baseUrl: sandbox.url,
    keys: {
      general: key("sunrise-general"),
      generalLeadsOnly: key("sunrise-leads-only"),
      revoked: key("sunrise-revoked"),
      contractor: key("sunrise-crew-a"),
      contractorReadOnly: key("sunrise-crew-a-read-only"),
      otherContractor: key("sunrise-crew-b"),
      otherCompanyGeneral: key("brightline-general"),
      installerCompany: key("voltworks-installer"),
      installerCompanyReadOnly: key("voltworks-read-only"),
      otherInstallerCompany: key("crestline-installer"),
      sameOwnerKeys: [],
    },
    fixtures: SEED_FIXTURES,
    remote: false,
    adminToken: LOCAL_ADMIN_TOKEN,
    restartWindows: async () => {
      sandbox.admin.setLimits({});
    },
    close: () => sandbox.close(),
  };
}
