import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { installJobs } from "./install-jobs.js";

export const FEED_ITEM_KINDS = ["change", "unassigned"] as const;
export type FeedItemKind = (typeof FEED_ITEM_KINDS)[number];

/**
 * The change feed (§2.2, §4.1): one row per change of an install job, in `sequence` order. `installerCompanyId` is the
 * installer company the item is visible to — the one assigned after the change, or, for an `unassigned` tombstone, the
 * one removed; null when the job had none. An unassignment also clears it on the job's earlier items, so the removed
 * company never reads the job's projection again (§1, §5.6). AUTOINCREMENT: a sequence is never reused, even after a
 * reset empties the table, so a stored cursor never skips a change.
 */
export const installFeed = sqliteTable(
  "install_feed",
  {
    sequence: integer("sequence").primaryKey({ autoIncrement: true }),
    jobId: text("job_id")
      .notNull()
      .references(() => installJobs.id),
    installerCompanyId: text("installer_company_id").references(() => companies.id),
    kind: text("kind", { enum: FEED_ITEM_KINDS }).notNull(),
    changedAt: text("changed_at").notNull(),
    /** The item's `resource` as JSON text, as answered: the §2.1 projection after the change, or the tombstone. */
    resource: text("resource").notNull(),
  },
  (t) => [
    // Serves every feed page (§4.1): the latest page without a cursor (backwards from the end of one company's range)
    // and the page after a cursor, both a range of this index whatever the history's length.
    index("install_feed_installer_sequence_idx").on(t.installerCompanyId, t.sequence),
    // Serves hiding a job's earlier items from the installer company it was unassigned from.
    index("install_feed_job_idx").on(t.jobId, t.installerCompanyId),
  ],
);

export type InstallFeedRow = typeof installFeed.$inferSelect;
