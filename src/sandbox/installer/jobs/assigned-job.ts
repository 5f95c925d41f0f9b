import { ApiError, conflict, notFound } from "../../../http/errors.js";
import type { SandboxQuery } from "../../db/client.js";
import type { InstallJobRow } from "../../db/schema/index.js";
import { readJob } from "../store/jobs.js";
import { isTerminal } from "./transitions.js";

/**
 * §4.1, §5.6: a job the installer company may reach — assigned to it now. Another company's job, an unassigned one
 * and an unknown id are the same 404 (§7: existence is not confirmed).
 */
export function assignedJob(db: SandboxQuery, installerCompanyId: string, jobId: string): InstallJobRow {
  const job = readJob(db, jobId);
  if (!job || job.installerCompanyId !== installerCompanyId) throw notFound("job not found");
  return job;
}

/** §3.1 rule 2, §7: a write on a stale version is 409 and the message states the current version. */
export function requireVersion(job: InstallJobRow, expectedVersion: number): void {
  if (job.version !== expectedVersion) {
    throw conflict(`expectedVersion ${expectedVersion} is stale: the job is at version ${job.version}`, {
      field: "expectedVersion",
      currentVersion: job.version,
    });
  }
}

/** §3.1: COMPLETE and CANCELLED are terminal; what a terminal job refuses is 422 (§7 semantically invalid). */
export function requireOpen(job: InstallJobRow, what: string): void {
  if (isTerminal(job.status)) {
    throw new ApiError("unprocessable", `${what}: the job is ${job.status}, a terminal status (§3.1)`, {
      details: { status: job.status },
    });
  }
}
