import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { SandboxQuery } from "../../db/client.js";
import { type FeedItemKind, installFeed } from "../../db/schema/index.js";

/** Storage of the change feed (§2.2, §4.1). */

/** A type, not an interface: a prepared statement takes it as its record of named parameters. */
export type NewFeedItem = {
  jobId: string;
  installerCompanyId: string | null;
  kind: FeedItemKind;
  changedAt: string;
  /** JSON text of the item's resource. */
  resource: string;
};

export interface FeedItemRow {
  sequence: number;
  changedAt: string;
  resource: string;
}

/** Appends one item; its sequence is above every sequence ever given, a reset's included. */
export function appendFeedItem(tx: SandboxQuery, item: NewFeedItem): number {
  const row = tx.insert(installFeed).values(item).returning({ sequence: installFeed.sequence }).get();
  return row.sequence;
}

/**
 * Many items in order (benchmarks growing a history): one prepared statement run per item, in the caller's
 * transaction — a third of the time of multi-row inserts, whose SQL drizzle builds anew for every chunk.
 */
export function appendFeedItems(tx: SandboxQuery, items: NewFeedItem[]): void {
  const insert = tx
    .insert(installFeed)
    .values({
      jobId: sql.placeholder("jobId"),
      installerCompanyId: sql.placeholder("installerCompanyId"),
      kind: sql.placeholder("kind"),
      changedAt: sql.placeholder("changedAt"),
      resource: sql.placeholder("resource"),
    })
    .prepare();
  for (const item of items) insert.run(item);
}

/**
 * §1, §5.6: after an unassignment the removed company never reads the job's projection again, from old cursors too:
 * its earlier items of the job stop being its own.
 */
export function hideJobFromInstaller(tx: SandboxQuery, jobId: string, installerCompanyId: string): void {
  tx.update(installFeed)
    .set({ installerCompanyId: null })
    .where(and(eq(installFeed.jobId, jobId), eq(installFeed.installerCompanyId, installerCompanyId)))
    .run();
}

const columns = { sequence: installFeed.sequence, changedAt: installFeed.changedAt, resource: installFeed.resource };

/** The last `limit` items of one company, newest first: a backwards range of (installer company, sequence). */
export function latestItemsQuery(db: SandboxQuery, installerCompanyId: string, limit: number) {
  return db
    .select(columns)
    .from(installFeed)
    .where(eq(installFeed.installerCompanyId, installerCompanyId))
    .orderBy(desc(installFeed.sequence))
    .limit(limit);
}

/** Up to `limit` items of one company after `sequence`, in order: a forward range of the same index. */
export function itemsAfterQuery(db: SandboxQuery, installerCompanyId: string, sequence: number, limit: number) {
  return db
    .select(columns)
    .from(installFeed)
    .where(and(eq(installFeed.installerCompanyId, installerCompanyId), gt(installFeed.sequence, sequence)))
    .orderBy(asc(installFeed.sequence))
    .limit(limit);
}

/** The highest sequence ever given (0 before the first item), kept by SQLite across deletions. */
export function lastSequence(db: SandboxQuery): number {
  const row = db.get<{ seq: number } | undefined>(sql`select seq from sqlite_sequence where name = 'install_feed'`);
  return row?.seq ?? 0;
}
