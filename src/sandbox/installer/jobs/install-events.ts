import type { JobStatus } from "../../db/schema/index.js";
import type { InstallerJob } from "./projection.js";

/** Who made a change: §3.2 "a change by either the company or the installer". */
export type ChangeSide = "company" | "installer";

/** A signed, time-limited link to a document's content (§2.1 "Document URLs"). */
export interface DocumentLink {
  url: string;
  urlExpiresAt: string;
}

/** Each §6.7 install.* event a job change can emit, with what its payload needs beyond the job. */
export type InstallEvent =
  | { name: "install.job_assigned"; installerCompanyId: string }
  | { name: "install.job_unassigned"; installerCompanyId: string }
  | { name: "install.job_cancelled"; previousStatus: JobStatus; reason: string | null }
  | { name: "install.schedule_changed"; changedBy: ChangeSide; previousSchedule: InstallerJob["schedule"] }
  | { name: "install.readiness_changed"; previousReadiness: InstallerJob["readiness"] }
  | {
      name: "install.document_available";
      document: { id: string; category: string; availableAt: string };
      link: DocumentLink | null;
    }
  | {
      name: "install.status_changed";
      previousStatus: JobStatus;
      occurredAt: string;
      blockerCode: string | null;
      note: string | null;
      /** §3.1 rule 3: the scopeVersion this status event acknowledged, when one awaited acknowledgement. */
      scopeVersionAcknowledged: number | null;
    }
  | { name: "install.completion_received"; acceptedAt: string; evidence: { photos: number; documents: number } }
  | { name: "install.scope_acknowledgement_required" };

export type InstallEventName = InstallEvent["name"];

/**
 * §6.1 `data` of every install.* event (payloads not shown beyond three hints; docs/decisions.md). Each carries the
 * job id and, but for job_unassigned, the job as the §2.1 projection after the change — never anything else of the
 * job, so every recipient gets installer-safe data. job_unassigned carries no projection: the removed company must
 * not read the job again (§1).
 */
export function installEventData(event: InstallEvent, job: InstallerJob): Record<string, unknown> {
  const jobId = job.id;
  switch (event.name) {
    case "install.job_assigned":
      return { jobId, installerCompanyId: event.installerCompanyId, job };
    case "install.job_unassigned":
      return { jobId, installerCompanyId: event.installerCompanyId };
    case "install.job_cancelled":
      return { jobId, previousStatus: event.previousStatus, reason: event.reason, job };
    case "install.schedule_changed":
      return {
        jobId,
        changedBy: event.changedBy,
        previousSchedule: event.previousSchedule,
        schedule: job.schedule,
        job,
      };
    case "install.readiness_changed":
      return { jobId, previousReadiness: event.previousReadiness, readiness: job.readiness, job };
    case "install.document_available":
      // §6.1: carries a signed document URL — when the job has an installer company to bind it to.
      return { jobId, document: { ...event.document, ...(event.link ?? {}) }, job };
    case "install.status_changed":
      return {
        jobId,
        previousStatus: event.previousStatus,
        status: job.status,
        occurredAt: event.occurredAt,
        blockerCode: event.blockerCode,
        note: event.note,
        scopeVersionAcknowledged: event.scopeVersionAcknowledged,
        job,
      };
    case "install.completion_received":
      // §6.1: carries evidence counts.
      return { jobId, acceptedAt: event.acceptedAt, evidence: event.evidence, job };
    case "install.scope_acknowledgement_required":
      // §6.1: carries the new scopeVersion.
      return { jobId, scopeVersion: job.scope.scopeVersion, job };
  }
}
