import type { GatewayDb } from "../db/client.js";
import type { SqliteDatabase } from "../db/sqlite.js";
import type { Logger } from "../log.js";
import type { SubmissionWriter } from "./intake/submission-writer.js";
import type { VersionCache } from "./intake/version-cache.js";
import type { ProfileEngine } from "./profiles/index.js";
import type { Sealer } from "./security/sealer.js";

export interface GatewaySettings {
  /** `sandbox`: test keys, loopback allowed; `live`: live keys, https and the SSRF guard. */
  mode: "sandbox" | "live";
  /** The gateway's own intake limit per vendor key: a token bucket that absorbs bursts (§8 is the upstream's). */
  intakeLimit: { ratePerSecond: number; burst: number };
  /** Days raw payloads are kept before the retention purge drops them. */
  retentionDays: number;
}

/** Dependencies built once at start and passed to every service verb (STYLE: no globals, no env reads). */
export interface GatewayContext {
  db: GatewayDb;
  sqlite: SqliteDatabase;
  log: Logger;
  sealer: Sealer;
  engine: ProfileEngine;
  settings: GatewaySettings;
  /** Group-committing writer of accepted submissions (the intake hot path). */
  submissionWriter: SubmissionWriter;
  /** Immutable profile versions, read once. */
  versions: VersionCache;
  now: () => Date;
}

export const defaultSettings: GatewaySettings = {
  mode: "sandbox",
  intakeLimit: { ratePerSecond: 100, burst: 200 },
  retentionDays: 30,
};
