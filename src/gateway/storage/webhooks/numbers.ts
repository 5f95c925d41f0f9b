import type { WebhookDeliveryRow, WebhookSubscriptionRow } from "./row.js";

/**
 * The epoch-millisecond columns (`epochMs`: SQLite's integer, PostgreSQL's bigint) and counts as the rows' numbers.
 * node-postgres reads an int8 as a string until the pool parses it; SQLite's are numbers already, left as they are.
 */
export function withNumbers<T extends object>(row: T, keys: readonly (keyof T)[]): T {
  const fields = row as Record<keyof T, unknown>;
  for (const key of keys) {
    const value = fields[key];
    if (typeof value === "string") fields[key] = Number(value);
  }
  return row;
}

/**
 * An epoch-millisecond time as written: a whole number. A Retry-After may be fractional seconds (`1.0005`, so
 * 1,000.5 ms), which PostgreSQL's bigint refuses and SQLite would keep as a REAL; both store it rounded.
 */
export function wholeMs(ms: number): number {
  return Math.round(ms);
}

/** The same for a nullable one. */
export function wholeMsOrNull(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms);
}

/** A subscription row with its epoch-ms columns as numbers. */
export function asSubscriptionRow<T extends Pick<WebhookSubscriptionRow, "failingSince" | "pausedUntil">>(row: T): T {
  return withNumbers(row, ["failingSince", "pausedUntil"]);
}

/** A delivery row with its epoch-ms columns as numbers. */
export function asDeliveryRow<T extends Pick<WebhookDeliveryRow, "nextAttemptAt" | "createdAtMs">>(row: T): T {
  return withNumbers(row, ["nextAttemptAt", "createdAtMs"]);
}
