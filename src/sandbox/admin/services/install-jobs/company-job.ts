import { notFound } from "../../../../http/errors.js";
import type { SandboxQuery } from "../../../db/client.js";
import type { InstallJobRow } from "../../../db/schema/index.js";
import { readJob } from "../../../installer/store/jobs.js";

/** The company's side reaches any job by id (the admin API stands in for the platform itself). */
export function companyJob(db: SandboxQuery, jobId: string): InstallJobRow {
  const job = readJob(db, jobId);
  if (!job) throw notFound("install job not found");
  return job;
}
