import { and, asc, count, eq } from "drizzle-orm";
import type { SandboxQuery } from "../../db/client.js";
import { type EvidenceKind, type InstallEvidenceRow, installEvidence } from "../../db/schema/index.js";

/** Storage of completion evidence (§3.1 rule 4). */

export function insertEvidence(tx: SandboxQuery, row: InstallEvidenceRow): void {
  tx.insert(installEvidence).values(row).run();
}

export function evidenceOfJob(db: SandboxQuery, jobId: string): InstallEvidenceRow[] {
  return db
    .select()
    .from(installEvidence)
    .where(eq(installEvidence.jobId, jobId))
    .orderBy(asc(installEvidence.uploadedAt), asc(installEvidence.id))
    .all();
}

/**
 * How many photos and documents an installer company uploaded for a job, for install.completion_received (§6.1
 * "evidence counts").
 */
export function evidenceCounts(
  db: SandboxQuery,
  jobId: string,
  installerCompanyId: string,
): Record<`${EvidenceKind}s`, number> {
  const rows = db
    .select({ kind: installEvidence.kind, n: count() })
    .from(installEvidence)
    .where(and(eq(installEvidence.jobId, jobId), eq(installEvidence.installerCompanyId, installerCompanyId)))
    .groupBy(installEvidence.kind)
    .all();
  const of = (kind: EvidenceKind) => rows.find((r) => r.kind === kind)?.n ?? 0;
  return { photos: of("photo"), documents: of("document") };
}
