import { idFloor } from "../../../ids.js";
import type { StoreSql } from "../sql/store-sql.js";
import type { IntakeCounts, SubmissionTimes } from "./row.js";

// What the alert evaluator reads of the submissions record (docs/alerts.md), every evaluation for every company: each
// statement is a range of one index, said beside it, so a company's cost follows its traffic in the window only.

/**
 * Per vendor key and connection, the submissions accepted since `since` (ms) and how many of them are held (a hook
 * payload its profile could not map): a range of `submissions_company_id_idx` (ids are time-ordered).
 */
export function intakeSince(store: StoreSql, companyId: string, since: number): Promise<IntakeCounts[]> {
  return store.db
    .selectFrom("submissions")
    .select((eb) => [
      "vendorKeyId",
      "connectionId",
      eb.cast<number>(eb.fn.countAll(), "integer").as("accepted"),
      eb.cast<number>(eb.fn.countAll().filterWhere("status", "=", "held"), "integer").as("held"),
    ])
    .where("companyId", "=", companyId)
    .where("id", ">=", idFloor("sub", since))
    .groupBy(["vendorKeyId", "connectionId"])
    .execute();
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
 * at or after `since` (ISO): the first on `submissions_company_status_id_idx`, the second a range of
 * `submissions_company_updated_idx`.
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
    .where("updatedAt", ">=", since)
    .where("status", "=", "failed")
    .executeTakeFirst();
  return { total: total?.n ?? 0, entered: entered?.n ?? 0 };
}

/**
 * A company's submissions forwarded at or after `since` (ISO), with when each was accepted: forwarding's latency.
 * A range of `submissions_company_updated_idx` (a forwarded row was last changed when it was forwarded).
 */
export function forwardedSince(store: StoreSql, companyId: string, since: string): Promise<SubmissionTimes[]> {
  return store.db
    .selectFrom("submissions")
    .select(["status", "createdAt", "forwardedAt", "updatedAt"])
    .where("companyId", "=", companyId)
    .where("updatedAt", ">=", since)
    .where("status", "=", "forwarded")
    .where("forwardedAt", ">=", since)
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
