import { eq } from "drizzle-orm";
import type { SandboxQuery } from "../../db/client.js";
import { companies, type InstallJobRow } from "../../db/schema/index.js";
import { documentsOfJob } from "../store/documents.js";
import { type InstallerJob, installerJob } from "./projection.js";

/** The §2.1 projection of a job row, with its company's name and its documents read alongside. */
export function projectJob(db: SandboxQuery, job: InstallJobRow): InstallerJob {
  const company = db.select({ name: companies.name }).from(companies).where(eq(companies.id, job.companyId)).get();
  return installerJob({ job, companyName: company?.name ?? "", documents: documentsOfJob(db, job.id) });
}
