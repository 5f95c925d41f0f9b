import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { profiles } from "./profiles.js";

/** A golden sample as stored: a native payload and what it must produce (see docs/profiles.md). */
export interface StoredSample {
  name: string;
  payload: unknown;
  expect:
    | { body: unknown }
    | { records: unknown[] }
    | { error: { field?: string; kind?: "validation" | "mapping" | "guardrail" } };
}

/**
 * One immutable version of a profile: the JSONata expression and its golden samples. A version is `draft` until
 * published; publishing requires every golden sample to pass. Submissions record the version that mapped them.
 */
export const profileVersions = sqliteTable(
  "profile_versions",
  {
    id: text("id").primaryKey(),
    profileId: text("profile_id")
      .notNull()
      .references(() => profiles.id),
    companyId: text("company_id").notNull(),
    version: integer("version").notNull(),
    expression: text("expression").notNull(),
    samples: text("samples", { mode: "json" }).$type<StoredSample[]>().notNull(),
    status: text("status", { enum: ["draft", "published"] }).notNull(),
    /** Result of the golden samples when the version was saved. */
    samplesPassed: integer("samples_passed", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
    publishedAt: text("published_at"),
  },
  (t) => [
    // Version history of a profile, newest first; also makes version numbers unique.
    uniqueIndex("profile_versions_profile_version_uq").on(t.profileId, t.version),
  ],
);
