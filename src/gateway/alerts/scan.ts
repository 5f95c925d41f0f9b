import type { GatewayContext } from "../context.js";
import type { AlertRow } from "../storage/alerts/index.js";
import type { ConnectionRow } from "../storage/connections/index.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import type { Condition, Thresholds } from "./conditions.js";
import type { Finding } from "./finding.js";

/** What one evaluation of one company gives each condition's finder. */
export interface Scan {
  ctx: GatewayContext;
  companyId: string;
  nowMs: number;
  thresholds: Thresholds;
  /** The company's live alerts of each condition, by resource id. */
  live(condition: Condition): AlertRow[];
  /** The company's vendor keys and connections, read once per evaluation. */
  keys(): Promise<VendorKeyRow[]>;
  connections(): Promise<ConnectionRow[]>;
}

export type Finder = (scan: Scan) => Promise<Finding[]>;

export const MINUTE_MS = 60_000;

/** How a resource is named in a message: its name, quoted, and its id. */
export function named(kind: string, row: { id: string; name: string } | undefined, id: string): string {
  return row ? `${kind} "${row.name}" (${id})` : `${kind} ${id}`;
}

/** Memoised: each finder asking for the keys or connections costs one read per evaluation. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= load();
    return value;
  };
}
