import { asc, eq } from "drizzle-orm";
import type { SandboxQuery } from "../../db/client.js";
import { type InstallDocumentRow, installDocuments } from "../../db/schema/index.js";

/** Storage of job documents (§2.1 documents). */

export type DocumentListing = Pick<InstallDocumentRow, "id" | "category" | "availableAt">;

export function insertDocument(tx: SandboxQuery, row: InstallDocumentRow): void {
  tx.insert(installDocuments).values(row).run();
}

/** A job's documents in the order they became available, without their content. */
export function documentsOfJob(db: SandboxQuery, jobId: string): DocumentListing[] {
  return db
    .select({ id: installDocuments.id, category: installDocuments.category, availableAt: installDocuments.availableAt })
    .from(installDocuments)
    .where(eq(installDocuments.jobId, jobId))
    .orderBy(asc(installDocuments.availableAt), asc(installDocuments.id))
    .all();
}

export function readDocument(db: SandboxQuery, documentId: string): InstallDocumentRow | undefined {
  return db.select().from(installDocuments).where(eq(installDocuments.id, documentId)).get();
}
