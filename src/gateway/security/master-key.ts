import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../../config.js";
import { parseMasterKey } from "./sealer.js";

/**
 * The master key that seals upstream credentials. Live mode requires MASTER_KEY (from a secret manager). Sandbox mode
 * falls back to a key file beside the database, created once with mode 0600 — or a throwaway key for an in-memory
 * database, whose sealed values die with it anyway. On PostgreSQL (`databasePath` undefined) there is no file beside
 * the database and the processes of several machines must agree: MASTER_KEY is required in every mode (D-258).
 */
export function resolveMasterKey(options: {
  mode: "sandbox" | "live";
  masterKey?: string;
  databasePath: string | undefined;
}): Buffer {
  if (options.masterKey) {
    try {
      return parseMasterKey(options.masterKey);
    } catch (error) {
      throw new ConfigError(`MASTER_KEY: ${(error as Error).message}`);
    }
  }
  if (options.mode === "live") throw new ConfigError("MASTER_KEY: required in live mode (32 bytes, hex or base64)");
  if (options.databasePath === undefined) {
    throw new ConfigError("MASTER_KEY: required when DATABASE_URL is set (32 bytes, hex or base64)");
  }
  if (options.databasePath === ":memory:") return randomBytes(32);
  const file = join(dirname(options.databasePath), "master.key");
  if (existsSync(file)) return parseMasterKey(readFileSync(file, "utf8"));
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32);
  // Written whole under a temporary name, then linked into place: a second process starting on the same database
  // (a BullMQ worker) either links first or finds the complete file and uses that key.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, key.toString("hex"), { mode: 0o600, flag: "wx" });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return parseMasterKey(readFileSync(file, "utf8"));
  } finally {
    unlinkSync(temporary);
  }
  return key;
}
