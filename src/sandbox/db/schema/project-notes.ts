import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { apiKeys } from "./api-keys.js";
import { projects } from "./projects.js";

/**
 * §4.2: each installer note a contractor appended, with its timestamp. This is the company's notification record;
 * the job's `installerNote` text carries the same entries for the contractor's view (§2.9).
 */
export const projectNotes = sqliteTable(
  "project_notes",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    keyId: text("key_id").references(() => apiKeys.keyId),
    note: text("note").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Serves the notes of one project in order (admin view, tests).
    index("project_notes_project_idx").on(t.projectId, t.createdAt),
  ],
);

export type ProjectNoteRow = typeof projectNotes.$inferSelect;
