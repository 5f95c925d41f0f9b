import type { SandboxQuery } from "../../../db/client.js";
import type { InstallJobRow } from "../../../db/schema/index.js";
import { readinessOf } from "../../../installer/jobs/readiness.js";
import { type DocumentListing, documentsOfJob } from "../../../installer/store/documents.js";
import { evidenceOfJob } from "../../../installer/store/evidence.js";

/** A job as the company sees it in the admin API: every field, its documents and the installer's evidence. */
export interface CompanyJobView extends InstallJobRow {
  readiness: { ready: boolean; blockerCodes: string[] };
  documents: DocumentListing[];
  evidence: Array<{ id: string; kind: string; fileName: string; bytes: number; uploadedAt: string }>;
}

export function companyJobView(db: SandboxQuery, row: InstallJobRow): CompanyJobView {
  return {
    ...row,
    readiness: readinessOf(row),
    documents: documentsOfJob(db, row.id),
    evidence: evidenceOfJob(db, row.id).map((e) => ({
      id: e.id,
      kind: e.kind,
      fileName: e.fileName,
      bytes: e.bytes,
      uploadedAt: e.uploadedAt,
    })),
  };
}
