import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { SandboxQuery } from "../../db/client.js";
import { type InstallJobRow, installJobs } from "../../db/schema/index.js";

/** Storage of install jobs (§2.1): the whole record, company-side fields included. */

export function readJob(db: SandboxQuery, jobId: string): InstallJobRow | undefined {
  return db.select().from(installJobs).where(eq(installJobs.id, jobId)).get();
}

export function insertJob(tx: SandboxQuery, row: InstallJobRow): void {
  tx.insert(installJobs).values(row).run();
}

/** 17 columns × 500 rows stays under SQLite's 32,766 bound parameters. */
const JOB_CHUNK = 500;

/** Every column but the id set from the row being inserted: a bulk write replaces jobs that exist. */
const replaceAll = Object.fromEntries(
  Object.entries(getTableColumns(installJobs))
    .filter(([name]) => name !== "id")
    .map(([name, column]) => [name, sql.raw(`excluded.${column.name}`)]),
);

/**
 * Many jobs as they now stand, inserted or replaced (benchmarks that grow a history in bulk, whose feed items are
 * appended beside them): not a change — commit-change.ts is the way a job changes.
 */
export function saveJobs(tx: SandboxQuery, rows: InstallJobRow[]): void {
  for (let i = 0; i < rows.length; i += JOB_CHUNK) {
    tx.insert(installJobs)
      .values(rows.slice(i, i + JOB_CHUNK))
      .onConflictDoUpdate({ target: installJobs.id, set: replaceAll })
      .run();
  }
}

/**
 * Replaces a job's row with its next version, only if the stored row is still at the version before it: a change
 * computed from a job that another change has since moved must fail, not overwrite it.
 */
export function writeJob(tx: SandboxQuery, row: InstallJobRow): void {
  const { id, ...fields } = row;
  const result = tx
    .update(installJobs)
    .set(fields)
    .where(and(eq(installJobs.id, id), eq(installJobs.version, row.version - 1)))
    .run();
  if (result.changes !== 1) throw new Error(`install job ${id} is no longer at version ${row.version - 1}`);
}
