import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "../../config.js";

const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,40}$/, "lowercase letters, digits, - and _ (up to 41)");
/** A secret given literally (sandbox mode only) or by naming the environment variable that holds it. */
const secretRef = { value: z.string().min(1).optional(), valueEnv: z.string().min(1).optional() };

export const configFileSchema = z.object({
  mode: z.enum(["sandbox", "live"]).optional(),
  upstreamUrl: z.url().optional(),
  intakeLimit: z.object({ ratePerSecond: z.number().positive(), burst: z.number().int().positive() }).optional(),
  retentionDays: z.number().int().min(1).max(3650).optional(),
  /** The upstream's limits per minute (§8); raise them only when the platform granted more ("by arrangement"). */
  upstreamLimits: z
    .object({
      perCredentialPerMinute: z.number().int().positive().default(60),
      perCompanyPerMinute: z.number().int().positive().default(300),
      egressPerMinute: z.number().int().positive().default(600),
      /**
       * Sandbox mode only: the sliding window the limits are kept over, the per-minute figures scaled to it (600 a
       * minute over 1000 ms: 10 a window). The platform's is a minute (§8); a sandbox run with the same shorter
       * windows reaches the paced regime of a backlog in seconds instead of after a first minute (D-252).
       */
      windowMs: z.number().int().min(100).max(60_000).optional(),
    })
    .superRefine((limits, issues) => {
      if (limits.windowMs === undefined) return;
      const figures = ["perCredentialPerMinute", "perCompanyPerMinute", "egressPerMinute"] as const;
      for (const figure of figures) {
        if ((limits[figure] * limits.windowMs) % 60_000 !== 0) {
          issues.addIssue({
            code: "custom",
            path: [figure],
            message: `scaled to windowMs ${limits.windowMs} it must be a whole number of sends`,
          });
        }
      }
    })
    .optional(),
  companies: z
    .array(
      z.object({
        id: slug,
        name: z.string().min(1),
        limits: z
          .object({
            perCredential: z.number().int().positive().optional(),
            perCompany: z.number().int().positive().optional(),
          })
          .optional(),
        owners: z
          .array(
            z.object({
              email: z.string().min(3),
              name: z.string().min(1),
              role: z.enum(["admin", "viewer"]).default("admin"),
              password: z.string().optional(),
              passwordEnv: z.string().optional(),
            }),
          )
          .default([]),
        credentials: z.array(z.object({ name: z.string().min(1), ...secretRef })).default([]),
        /** Profile directories (profile.json + profile.jsonata + samples/), relative to the config file. */
        profiles: z.array(z.object({ path: z.string().min(1) })).default([]),
        vendorKeys: z
          .array(
            z.object({
              name: z.string().min(1),
              partnerType: z.enum(["lead_source", "booking_vendor"]),
              scopes: z.array(z.enum(["leads:write", "appointments:write"])).min(1),
              credential: z.string().min(1),
              leadProfile: z.string().optional(),
              appointmentProfile: z.string().optional(),
              responseMode: z.enum(["async", "sync"]).optional(),
              /** The full key `<keyId>.<secret>`: fixed test keys, sandbox mode only. */
              key: z.string().optional(),
              keyEnv: z.string().optional(),
            }),
          )
          .default([]),
        /** Hook connections (docs/connections.md): a preset, its vendor's secrets, and the credential it forwards with. */
        connections: z
          .array(
            z.object({
              name: z.string().min(1),
              preset: z.string().min(1),
              credential: z.string().min(1),
              secrets: z.record(z.string().min(1), z.object(secretRef)).default({}),
              /** The hook URL's token (`hk_…`): fixed test tokens, sandbox mode only. Unset: one is made and logged once. */
              hookToken: z.string().optional(),
              hookTokenEnv: z.string().optional(),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
});

export type ConfigFile = z.infer<typeof configFileSchema>;

/** A parsed config file and the folder its relative paths start from. */
export interface LoadedConfig {
  config: ConfigFile;
  baseDir: string;
  source: string;
}

/** Reads a JSON or YAML config file; a bad file stops start-up with a message naming the path of each problem. */
export async function loadConfigFile(path: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} does not parse: ${(error as Error).message}`);
  }
  return { config: parseConfig(data, path), baseDir: dirname(resolve(path)), source: path };
}

export function parseConfig(data: unknown, source: string): ConfigFile {
  const result = configFileSchema.safeParse(data);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  throw new ConfigError(`invalid config file ${source}:\n${lines.join("\n")}`);
}

/**
 * Live mode refuses what only belongs in a sandbox: literal secrets in the file (they would live in source
 * control, §5.9) — owners' passwords, credential values and vendor keys come from environment variables there.
 */
export function checkLiveConfig(config: ConfigFile, source: string): void {
  const problems: string[] = [];
  if (config.upstreamLimits?.windowMs !== undefined) {
    problems.push("upstreamLimits.windowMs: the platform's window is a minute (§8); shorter ones are for sandbox runs");
  }
  config.companies.forEach((company, i) => {
    company.owners.forEach((owner, j) => {
      if (owner.password) problems.push(`companies.${i}.owners.${j}.password: use passwordEnv in live mode`);
    });
    company.credentials.forEach((credential, j) => {
      if (credential.value) problems.push(`companies.${i}.credentials.${j}.value: use valueEnv in live mode`);
    });
    company.vendorKeys.forEach((key, j) => {
      if (key.key) problems.push(`companies.${i}.vendorKeys.${j}.key: fixed keys are for sandbox mode; use keyEnv`);
    });
    company.connections.forEach((connection, j) => {
      if (connection.hookToken) {
        problems.push(`companies.${i}.connections.${j}.hookToken: fixed tokens are for sandbox mode; use hookTokenEnv`);
      }
      for (const [name, secret] of Object.entries(connection.secrets)) {
        if (secret.value)
          problems.push(`companies.${i}.connections.${j}.secrets.${name}.value: use valueEnv in live mode`);
      }
    });
  });
  if (problems.length > 0) {
    throw new ConfigError(`config file ${source} holds sandbox-only settings:\n  ${problems.join("\n  ")}`);
  }
}

/** Resolves a literal-or-env secret; a missing variable is a configuration error naming it. */
export function resolveSecret(
  ref: { value?: string; valueEnv?: string },
  env: NodeJS.ProcessEnv,
  where: string,
): string {
  if (ref.valueEnv) {
    const value = env[ref.valueEnv];
    if (!value) throw new ConfigError(`${where}: environment variable ${ref.valueEnv} is not set`);
    return value;
  }
  if (ref.value) return ref.value;
  throw new ConfigError(`${where}: give value or valueEnv`);
}
