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

/** OTLP over HTTP, protobuf or JSON; gRPC is not built in (D-350). */
const otlpProtocol = z.enum(["http/protobuf", "http/json"], {
  error: "http/protobuf or http/json (OTLP over gRPC is not built in)",
});

/** OpenTelemetry's `key=value,key=value` lists (headers, resource attributes), values percent-decoded. */
const keyValueList = z.string().transform((text, issues) => {
  const pairs: Record<string, string> = {};
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue;
    const at = entry.indexOf("=");
    const name = at > 0 ? entry.slice(0, at).trim() : "";
    if (name === "") {
      issues.addIssue({ code: "custom", message: "comma-separated name=value pairs" });
      return z.NEVER;
    }
    try {
      pairs[name] = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      issues.addIssue({ code: "custom", message: `the value of ${name} is not percent-encoded correctly` });
      return z.NEVER;
    }
  }
  return pairs;
});

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
    // Tracing (docs/tracing.md): OpenTelemetry's standard variables, read here only (D-350). Off unless asked for.
    /** `true`: no tracing whatever the other OTEL_* variables say. */
    OTEL_SDK_DISABLED: boolish.optional(),
    /** `otlp` turns tracing on, `none` keeps it off; unset: on only when an OTLP endpoint is set (D-350). */
    OTEL_TRACES_EXPORTER: z
      .string()
      .transform((text) =>
        text
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== ""),
      )
      .refine(
        (names) => names.every((name) => name === "otlp" || name === "none"),
        "otlp or none (spans go over OTLP/HTTP; other exporters are not built in)",
      )
      .optional(),
    /** The collector's base URL: spans go to its `/v1/traces`. */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    /** The traces URL as it is (no path added); wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
    /** `name=value` pairs, comma-separated, values URL-encoded (a collector's API key): sent with every export. */
    OTEL_EXPORTER_OTLP_HEADERS: keyValueList.optional(),
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList.optional(),
    /** How long one export may take (ms). */
    OTEL_EXPORTER_OTLP_TIMEOUT: z.coerce.number().int().min(1).optional(),
    OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: z.coerce.number().int().min(1).optional(),
    /** The service's name in the tracing backend; unset: partner-gateway (partner-gateway-worker for a worker). */
    OTEL_SERVICE_NAME: z.string().min(1).optional(),
    /** More resource attributes (`deployment.environment.name=prod,…`), as OpenTelemetry defines them. */
    OTEL_RESOURCE_ATTRIBUTES: keyValueList.optional(),
    OTEL_TRACES_SAMPLER: z
      .enum([
        "always_on",
        "always_off",
        "traceidratio",
        "parentbased_always_on",
        "parentbased_always_off",
        "parentbased_traceidratio",
      ])
      .default("parentbased_always_on"),
    /** The ratio of the `traceidratio` samplers, 0 to 1 (default 1). */
    OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
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

/** What tracing needs, read from the OTEL_* variables (docs/tracing.md): absent when tracing is off. */
export interface TracingConfig {
  /** Where spans are exported: the full traces URL. */
  url: string;
  protocol: "http/protobuf" | "http/json";
  headers: Record<string, string>;
  timeoutMs: number;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: { name: Env["OTEL_TRACES_SAMPLER"]; ratio: number };
}

/**
 * Tracing's settings, or undefined when it is off (D-350): OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none, or neither
 * `otlp` asked for nor an endpoint set. On, spans go to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else to
 * OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`, else to a collector on this machine (http://localhost:4318/v1/traces),
 * as OpenTelemetry's specification says.
 */
export function tracingConfig(env: Env, defaultServiceName: string): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED) return undefined;
  const exporters = env.OTEL_TRACES_EXPORTER;
  const endpointSet =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  const on = exporters === undefined || exporters.length === 0 ? endpointSet : exporters.includes("otlp");
  if (!on) return undefined;
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318").replace(/\/+$/, "");
  return {
    url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    headers: { ...env.OTEL_EXPORTER_OTLP_HEADERS, ...env.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    timeoutMs: env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    serviceName: env.OTEL_SERVICE_NAME ?? env.OTEL_RESOURCE_ATTRIBUTES?.["service.name"] ?? defaultServiceName,
    resourceAttributes: env.OTEL_RESOURCE_ATTRIBUTES ?? {},
    sampler: { name: env.OTEL_TRACES_SAMPLER, ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1 },
  };
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
