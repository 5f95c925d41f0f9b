import { blob, index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { installJobs } from "./install-jobs.js";

/**
 * Documents the company makes available on a job (§2.1 documents, §6.7 install.document_available): scope, permit,
 * manual, warranty, completion. An installer reaches the content through a signed, time-limited URL bound to its
 * company (§2.1 "Document URLs").
 */
export const installDocuments = sqliteTable(
  "install_documents",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id")
      .notNull()
      .references(() => installJobs.id),
    category: text("category").notNull(),
    fileName: text("file_name").notNull(),
    contentType: text("content_type").notNull(),
    content: blob("content", { mode: "buffer" }).notNull(),
    availableAt: text("available_at").notNull(),
  },
  (t) => [
    // Serves the documents of one job in the order they became available (the §2.1 projection).
    index("install_documents_job_idx").on(t.jobId, t.availableAt, t.id),
  ],
);

export type InstallDocumentRow = typeof installDocuments.$inferSelect;
