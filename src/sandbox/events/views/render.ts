import type { Money } from "../../db/schema/index.js";

/** A partner type's view of one event: builds its `data` from the platform's by an allow-list, never by deleting. */
export type View = (data: Record<string, unknown>, schemaVersion: number) => Record<string, unknown>;

/**
 * §6.1, §9.4: money in a payload. Schema version 1 sends `amount` in major units beside `currency`; version 2 (where an
 * event has one, docs/decisions.md) sends one object in integer minor units, which no float rounding can change.
 */
export function moneyFields(money: Money, schemaVersion: number): Record<string, unknown> {
  return schemaVersion >= 2
    ? { amount: { amountCents: money.amountCents, currency: money.currency } }
    : { amount: money.amountCents / 100, currency: money.currency };
}

/** Copies the named fields that are present, and nothing else. */
export function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in source) out[key] = source[key];
  return out;
}
