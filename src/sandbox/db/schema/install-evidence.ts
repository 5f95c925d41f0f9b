import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { installJobs } from "./install-jobs.js";

export const EVIDENCE_KINDS = ["photo", "document"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/**
 * Completion evidence an installer uploaded (§3.1 rule 4 "photos and documents uploaded elsewhere"; the upload
 * endpoint is a stand-in, §4.1 rule 8 not shown). The sandbox keeps what the company's acceptance counts — kind,
 * name, type, size and SHA-256 — not the bytes.
 */
export const installEvidence = sqliteTable(
  "install_evidence",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id")
      .notNull()
      .references(() => installJobs.id),
    installerCompanyId: text("installer_company_id").notNull(),
    keyId: text("key_id").notNull(),
    kind: text("kind", { enum: EVIDENCE_KINDS }).notNull(),
    fileName: text("file_name").notNull(),
    contentType: text("content_type").notNull(),
    bytes: integer("bytes").notNull(),
    sha256: text("sha256").notNull(),
    uploadedAt: text("uploaded_at").notNull(),
  },
  (t) => [
    // Serves the evidence list of one job in upload order and the counts of install.completion_received.
    index("install_evidence_job_idx").on(t.jobId, t.uploadedAt, t.id),
  ],
);

export type InstallEvidenceRow = typeof installEvidence.$inferSelect;
