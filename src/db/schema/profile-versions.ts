import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { profiles } from "./profiles.js";
import { reference } from "./reference.js";

/** A golden sample as stored: a native payload and what it must produce (see docs/profiles.md). */
export interface StoredSample {
  name: string;
  payload: unknown;
  /** Variables bound beside the payload (`$notification` of a fetched record's sample): docs/profiles.md, "Bindings". */
  bindings?: Record<string, unknown>;
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
    profileId: reference("profile_id", () => profiles.id),
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
