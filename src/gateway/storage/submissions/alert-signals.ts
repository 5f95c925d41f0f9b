import { sql } from "kysely";
import { idFloor } from "../../../ids.js";
import type { StoreSql } from "../sql/store-sql.js";
import type { SubmissionTimes } from "./row.js";

// What the alert evaluator reads of the submissions record (docs/alerts.md), every evaluation for every company: each
// statement is a range of one index, said beside it, so a company's cost follows what failed in the window, not all
// it received (on SQLite a statement holds the event loop: counting a busy company's window of 600,000 rows took a
// second, D-381).

/**
 * Per connection, its payloads held since `since` (ms) (a hook payload its profile could not map): a range of
 * `submissions_company_status_id_idx` (ids are time-ordered), held rows only.
 */
export function heldSince(
  store: StoreSql,
  companyId: string,
  since: number,
): Promise<{ connectionId: string | null; held: number }[]> {
  return store.db
    .selectFrom("submissions")
    .select((eb) => ["connectionId", eb.cast<number>(eb.fn.countAll(), "integer").as("held")])
    .where("companyId", "=", companyId)
    .where("status", "=", "held")
    .where("id", ">=", idFloor("sub", since))
    .groupBy("connectionId")
    .execute();
}

/**
 * How many submissions a connection (or a vendor key's own intake, outside any connection) accepted since `since`
 * (ms), counted up to `cap` only: a range of `submissions_company_connection_id_idx` (or `submissions_vendor_key_id_idx`)
 * that stops there. The evaluator asks only of what failed, and needs no more than the count that makes it a share.
 */
export async function acceptedSince(
  store: StoreSql,
  companyId: string,
  of: { connectionId: string } | { vendorKeyId: string },
  since: number,
  cap: number,
): Promise<number> {
  const window = store.db
    .selectFrom("submissions")
    .select("id")
    .where("companyId", "=", companyId)
    .where("id", ">=", idFloor("sub", since));
  const rows =
    "connectionId" in of
      ? window.where("connectionId", "=", of.connectionId)
      : window.where("vendorKeyId", "=", of.vendorKeyId).where("connectionId", "is", null);
  const counted = await store.db
    .selectFrom(rows.limit(cap).as("window"))
    .select((eb) => eb.cast<number>(eb.fn.countAll(), "integer").as("n"))
    .executeTakeFirst();
  return counted?.n ?? 0;
}

/** Per vendor key, the payloads a guardrail refused since `since` (ms): a range of `mapping_failures_company_id_idx`. */
export function mappingFailuresSince(
  store: StoreSql,
  companyId: string,
  since: number,
): Promise<{ vendorKeyId: string; failures: number }[]> {
  return store.db
    .selectFrom("mappingFailures")
    .select((eb) => ["vendorKeyId", eb.cast<number>(eb.fn.countAll(), "integer").as("failures")])
    .where("companyId", "=", companyId)
    .where("id", ">=", idFloor("mf", since))
    .groupBy("vendorKeyId")
    .execute();
}

/**
 * How many of a company's submissions are in the dead letter now, and how many of those entered it (were last changed)
 * at or after `since` (ISO): both on `submissions_company_status_id_idx`, the failed rows only (D-381). The second
 * compares `updated_at` inside an expression, so that neither database takes `submissions_company_updated_idx` for it,
 * a range holding every row the company changed in the window (on SQLite, half a second of the event loop for a
 * window of 600,000).
 */
export async function deadLetterSince(
  store: StoreSql,
  companyId: string,
  since: string,
): Promise<{ total: number; entered: number }> {
  const total = await store.db
    .selectFrom("submissions")
    .select((eb) => eb.cast<number>(eb.fn.countAll(), "integer").as("n"))
    .where("companyId", "=", companyId)
    .where("status", "=", "failed")
    .executeTakeFirst();
  const entered = await store.db
    .selectFrom("submissions")
    .select((eb) => eb.cast<number>(eb.fn.countAll(), "integer").as("n"))
    .where("companyId", "=", companyId)
    .where("status", "=", "failed")
    .where(sql`coalesce(updated_at, '')`, ">=", since)
    .executeTakeFirst();
  return { total: total?.n ?? 0, entered: entered?.n ?? 0 };
}

/**
 * A company's submissions forwarded at or after `since` (ISO), with when each was accepted: forwarding's latency.
 * A range of `submissions_company_forwarded_idx` (D-381), forwarded rows only: not the range of every row the company
 * changed in the window, which intake's inserts fill.
 */
export function forwardedSince(store: StoreSql, companyId: string, since: string): Promise<SubmissionTimes[]> {
  return store.db
    .selectFrom("submissions")
    .select(["status", "createdAt", "forwardedAt", "updatedAt"])
    .where("companyId", "=", companyId)
    .where("forwardedAt", ">=", since)
    .where("status", "=", "forwarded")
    .execute();
}

/** When a vendor key's latest `limit` submissions were accepted, newest first: a seek on `submissions_vendor_key_id_idx`. */
export async function latestOfKey(store: StoreSql, vendorKeyId: string, limit: number): Promise<string[]> {
  const rows = await store.db
    .selectFrom("submissions")
    .select("createdAt")
    .where("vendorKeyId", "=", vendorKeyId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => r.createdAt);
}
