import type { Logger } from "../log.js";
import type { TrustedProxy } from "../net/client-address.js";
import type { PresetCatalogue } from "./connections/catalogue.js";
import { type ForwardingLimits, SPEC_FORWARDING_LIMITS } from "./forwarding/limits.js";
import type { StoreOutages } from "./outage/index.js";
import type { ProfileEngine } from "./profiles/index.js";
import type { ProfileSuggester } from "./profiles-admin/suggest/index.js";
import type { Running } from "./running.js";
import { OWASP_SCRYPT, type PasswordCost, type PasswordHasher } from "./security/passwords.js";
import type { Sealer } from "./security/sealer.js";
import type { AlertStore } from "./storage/alerts/index.js";
import type { CaptureStore } from "./storage/captures/index.js";
import type { ConnectionStore } from "./storage/connections/index.js";
import type { UpstreamCredentialStore } from "./storage/credentials/index.js";
import type { ProfileStore } from "./storage/profiles/index.js";
import type { SubmissionStore } from "./storage/submissions/index.js";
import type { TenantStore } from "./storage/tenants/index.js";
import type { Transaction } from "./storage/transaction.js";
import type { VendorKeyStore } from "./storage/vendor-keys/index.js";
import type { WebhookStore } from "./storage/webhooks/index.js";
import type { Tracing } from "./tracing/index.js";

export interface GatewaySettings {
  /** `sandbox`: test keys, loopback allowed; `live`: live keys, https and the SSRF guard. */
  mode: "sandbox" | "live";
  /** The gateway's own intake limit per vendor key: a token bucket that absorbs bursts (§8 is the upstream's). */
  intakeLimit: { ratePerSecond: number; burst: number };
  /** Days raw payloads are kept before the retention purge drops them. */
  retentionDays: number;
  /** The upstream's limits forwarding keeps (§8); the owner console shows each company's headroom against them. */
  upstreamLimits: ForwardingLimits;
  /** The operator's company: its admins may open the queue dashboard (Redis mode); null = nobody may. */
  operatorCompanyId: string | null;
  /** The reverse proxies whose header names the client (the sign-in limiter keys by it); null = the peer is the client. */
  trustedProxy: TrustedProxy | null;
  /**
   * Per company, what the owner's tooling (preview, sample tests, replay, saving and publishing) may ask of the
   * evaluators: requests at once, and evaluations as a token bucket (docs/decisions.md, "Bounded input").
   */
  toolingQuota: { concurrent: number; evaluationsPerSecond: number; burst: number };
  /** The gateway's public base URL (PUBLIC_URL): hook URLs are made on it (docs/connections.md). */
  publicUrl: string;
  /** scrypt's cost for owner passwords: OWASP's by default; tests pass a cheaper one. */
  passwordCost: PasswordCost;
  /** An owner session unused this long has ended (its absolute limit is 12 h). */
  sessionIdleMs: number;
  /**
   * Sandbox mode: the local ports tenants' webhooks may reach — every one (`"any"`) while the gateway listens on
   * loopback only, else those the operator listed (webhooks/loopback-ports.ts).
   */
  webhookLoopbackPorts: "any" | readonly number[];
}

/** Dependencies built once at start and passed to every service verb (STYLE: no globals, no env reads). */
export interface GatewayContext {
  log: Logger;
  sealer: Sealer;
  engine: ProfileEngine;
  /** Suggested profiles from sample payloads, on a thread of their own (docs/profiles.md, "Suggested profiles"). */
  suggester: ProfileSuggester;
  settings: GatewaySettings;
  /** Resolves when the database answers (readiness); which database it is stays the storage's (D-255). */
  ping(): Promise<void>;
  /** The outages of the database and Redis this process's loops are waiting out (readiness, metrics; D-332). */
  outages: StoreOutages;
  /** One transaction across records' storage modules; its work gets the stores bound to it (storage/transaction.ts). */
  transaction: Transaction;
  /** The submissions record: intake's group-committed accept, forwarding's states, the owner's reads. */
  submissions: SubmissionStore;
  /** The vendor keys record (intake's cached key lookup). */
  vendorKeys: VendorKeyStore;
  /** The tenants record: companies, owners, their sessions and tokens. */
  tenants: TenantStore;
  /** The upstream credentials record. */
  credentials: UpstreamCredentialStore;
  /** The profiles record: profiles and their immutable versions (read once each for intake). */
  profiles: ProfileStore;
  /** Owner password hashing, a couple at a time. */
  passwords: PasswordHasher;
  /** The webhooks record: subscriptions, events, deliveries, platform events and their routing. */
  webhooks: WebhookStore;
  /** The hook connections record (cached lookup by hook token). */
  connections: ConnectionStore;
  /** The alerts record: alerts and the companies' alert settings (docs/alerts.md). */
  alerts: AlertStore;
  /** The captured payloads record: what keys and connections in capture mode received (D-315). */
  captures: CaptureStore;
  /** The presets this gateway offers (presets/, loaded at start). */
  presets: PresetCatalogue;
  /** One trace per lead across processes (docs/tracing.md); NO_TRACING unless the OTEL_* settings turn it on. */
  tracing: Tracing;
  /**
   * What runs once started — forwarding, the webhook machinery, the fetcher (D-370): created empty with the context,
   * each part put in by its start. Not in a transaction's context: parts are told after the commit.
   */
  readonly running: Running;
  now: () => Date;
}

export const defaultSettings: GatewaySettings = {
  mode: "sandbox",
  intakeLimit: { ratePerSecond: 100, burst: 200 },
  retentionDays: 30,
  upstreamLimits: SPEC_FORWARDING_LIMITS,
  operatorCompanyId: null,
  trustedProxy: null,
  toolingQuota: { concurrent: 4, evaluationsPerSecond: 200, burst: 2_000 },
  publicUrl: "http://127.0.0.1:8080",
  passwordCost: OWASP_SCRYPT,
  sessionIdleMs: 30 * 60_000,
  // Unknown where it listens: no local port until told (serve derives it from HOST).
  webhookLoopbackPorts: [],
};
