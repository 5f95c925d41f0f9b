import { boolean, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { StoredSample } from "../schema/profile-versions.js";
import { profiles } from "./profiles.js";

/** PostgreSQL twin of `../schema/profile-versions.ts`. */
export const profileVersions = pgTable(
  "profile_versions",
  {
    id: text("id").primaryKey(),
    profileId: text("profile_id")
      .notNull()
      .references(() => profiles.id),
    companyId: text("company_id").notNull(),
    version: integer("version").notNull(),
    expression: text("expression").notNull(),
    samples: json("samples").$type<StoredSample[]>().notNull(),
    status: text("status", { enum: ["draft", "published"] }).notNull(),
    samplesPassed: boolean("samples_passed").notNull(),
    createdAt: text("created_at").notNull(),
    publishedAt: text("published_at"),
  },
  (t) => [
    // Version history of a profile, newest first; also makes version numbers unique.
    uniqueIndex("profile_versions_profile_version_uq").on(t.profileId, t.version),
  ],
);
