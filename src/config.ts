import { z } from "zod";
import { parseCidr } from "./net/ip.js";

/**
 * Every setting the process reads, parsed once at start (STYLE: nothing reads `process.env` while handling a request).
 * A bad value stops start-up with a message naming the variable.
 */
const boolish = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .transform((v) => v === "1" || v === "true" || v === "yes");

const port = z.coerce.number().int().min(0).max(65535);

export const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    HOST: z.string().min(1).default("127.0.0.1"),
    PORT: port.default(8080),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** Human-readable log lines; unset: on a terminal only (JSON lines elsewhere). */
    LOG_PRETTY: boolish.optional(),
    /** Gateway database: a SQLite file path, or `:memory:`. Unused when DATABASE_URL is set. */
    DATABASE_PATH: z.string().min(1).default("data/gateway.db"),
    /**
     * Set: the gateway's state on this PostgreSQL database (`postgres://` or `postgresql://`), shared by processes on
     * several machines; the sandbox platform stays on SQLite (docs/decisions.md, "PostgreSQL").
     */
    DATABASE_URL: z
      .string()
      .refine(
        (url) => /^postgres(ql)?:\/\/./.test(url) && URL.canParse(url),
        "a postgres:// or postgresql:// URL (the gateway's PostgreSQL database; unset for SQLite at DATABASE_PATH)",
      )
      .optional(),
    /** Connections of each process's PostgreSQL pool. */
    PG_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
    /** A PostgreSQL statement running longer is cancelled (ms); 0: no limit. */
    PG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
    /** `sandbox` (default: the embedded sandbox is the upstream) or `live` (a real upstream). */
    MODE: z.enum(["sandbox", "live"]).default("sandbox"),
    /** Base URL of the Inbound API; unset in sandbox mode means "the embedded sandbox". */
    UPSTREAM_URL: z.url().optional(),
    /** Set: the BullMQ forwarding driver on this Redis (several API and worker processes); unset: the embedded one. */
    REDIS_URL: z.url().optional(),
    /** Prefix of every Redis key and channel of this deployment (several may share one Redis). */
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - (up to 64)")
      .default("partner-gateway"),
    /**
     * The gateway operator's company id (`co_` + its id in the config file): its admins, and no one else, may open the
     * BullMQ dashboard at /console/queues in Redis mode, since the queues hold every company's jobs.
     */
    OPERATOR_COMPANY_ID: z.string().min(1).optional(),
    /**
     * The reverse proxies in front of the gateway, comma-separated addresses or CIDR ranges: a request from one of them
     * is keyed by the client address in CLIENT_ADDRESS_HEADER (the sign-in limiter). Unset: the peer is the client.
     */
    TRUSTED_PROXIES: z
      .string()
      .optional()
      .transform((text) =>
        (text ?? "")
          .split(",")
          .map((entry) => entry.trim())
          .filter((entry) => entry !== ""),
      )
      .refine(
        (ranges) => ranges.every((range) => parseCidr(range) !== undefined),
        "comma-separated addresses or CIDR ranges",
      ),
    /** The header a trusted proxy names the client in; `x-forwarded-for` lists, the right-most untrusted entry counts. */
    CLIENT_ADDRESS_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, "a header name")
      .transform((name) => name.toLowerCase())
      .default("x-forwarded-for"),
    /**
     * Sandbox mode, gateway not listening on loopback: the local ports tenants' webhooks may reach (comma-separated).
     * Listening on loopback, every local port is allowed.
     */
    WEBHOOK_LOOPBACK_PORTS: z
      .string()
      .regex(/^\s*(\d{1,5}\s*(,\s*\d{1,5}\s*)*)?$/, "a comma-separated list of ports")
      .transform((v) =>
        v
          .split(",")
          .map((p) => p.trim())
          .filter(Boolean)
          .map(Number),
      )
      .refine((ports) => ports.every((p) => p >= 1 && p <= 65535), "ports are 1 to 65535")
      .default([]),
    /** An owner console session unused this long ends (minutes; its absolute limit is 12 hours). */
    SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(720).default(30),
    /** Bearer token that `/metrics` and readiness details require (unset: open to whoever reaches the listener). */
    OPS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
    /** A second listener for health, readiness details and `/metrics`; the public one then serves neither. */
    OPS_HOST: z.string().min(1).default("127.0.0.1"),
    OPS_PORT: port.optional(),
    /**
     * The gateway's public base URL, as vendors reach it (behind a proxy, the proxy's): hook connections' URLs are made
     * on it. Unset: http://HOST:PORT.
     */
    PUBLIC_URL: z.url().optional(),
    /**
     * Alert e-mail (docs/alerts.md): the SMTP server, `smtp://` (STARTTLS when offered) or `smtps://` (TLS), with its
     * credentials in the URL (`smtps://user:password@mail.example.com:465`). Unset: alerts are not sent by e-mail.
     */
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
    /** The sender of alert e-mail (`Gateway alerts <alerts@example.com>`); required with SMTP_URL. */
    ALERT_EMAIL_FROM: z.string().min(3).max(320).optional(),
    /** How often the alert evaluator looks at every company (seconds). */
    ALERT_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
    /** The presets the gateway offers (one directory per vendor); unset: the ones it ships (presets/). */
    PRESETS_DIR: z.string().min(1).optional(),
    /** 32 bytes, base64 or hex: encrypts upstream credentials at rest (AES-256-GCM). */
    MASTER_KEY: z.string().optional(),
    CONFIG_FILE: z.string().optional(),
    // The embedded sandbox (spec's test environment).
    SANDBOX_HOST: z.string().min(1).default("127.0.0.1"),
    SANDBOX_PORT: port.default(8090),
    /** `:memory:` (default) or a SQLite file so that sandbox state survives a restart. */
    SANDBOX_DB: z.string().min(1).default(":memory:"),
    SANDBOX_SEED: z.string().optional(),
    /** Token for the sandbox's admin routes (reset, fault injection); generated at start when unset. */
    SANDBOX_ADMIN_TOKEN: z.string().min(16).optional(),
  })
  .superRefine((env, issues) => {
    if (env.SMTP_URL !== undefined && env.ALERT_EMAIL_FROM === undefined) {
      issues.addIssue({ code: "custom", path: ["ALERT_EMAIL_FROM"], message: "required when SMTP_URL is set" });
    }
    // Processes on several machines seal and open the same credentials: the key file a SQLite deployment falls back
    // to is one machine's (docs/decisions.md, D-228).
    if (env.DATABASE_URL !== undefined && !env.MASTER_KEY) {
      issues.addIssue({
        code: "custom",
        path: ["MASTER_KEY"],
        message:
          "required when DATABASE_URL is set (32 bytes, hex or base64): every gateway process on every machine must use the same key",
      });
    }
  });

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment; throws a ConfigError that names every bad variable. */
export function parseEnv(env: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(env)"}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
}

/**
 * The environment as given, for the one reader that needs variables by a name chosen at run time: a config file's
 * secret references (`valueEnv`, `passwordEnv`, `keyEnv`), resolved once at start.
 */
export function secretEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}
