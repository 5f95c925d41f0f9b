import { isoAt } from "../../clock.js";
import type { SandboxCtx } from "../../context.js";
import type { SandboxTx } from "../../db/client.js";
import type { InstallDocumentRow, InstallJobRow } from "../../db/schema/index.js";
import { recordEvent } from "../../events/record-event.js";
import { insertDocument } from "../store/documents.js";
import { appendFeedItem, hideJobFromInstaller } from "../store/feed.js";
import { insertJob, writeJob } from "../store/jobs.js";
import { type InstallEvent, installEventData } from "./install-events.js";
import { projectJob } from "./job-source.js";
import type { InstallerJob } from "./projection.js";

/** The fields a change may set; id, company, version and times are the change's own business. */
export type JobPatch = Partial<Omit<InstallJobRow, "id" | "companyId" | "version" | "createdAt" | "updatedAt">>;

export interface JobChange {
  /** The job as read in this transaction. */
  before: InstallJobRow;
  set: JobPatch;
  /** Documents that become available with this change (install.document_available). */
  documents?: InstallDocumentRow[];
  /** The job's event, or null for a change §6.7 names none for (a technician assignment). */
  event: ((job: InstallerJob) => InstallEvent) | null;
  /** The installer key whose request made the change; null for the company's side. */
  originKeyId: string | null;
}

export interface CommittedChange {
  row: InstallJobRow;
  job: InstallerJob;
  sequence: number;
  eventId: string | null;
}

/**
 * The one way a job changes (§2.1, §2.2, §6.1), in the caller's transaction: the version goes up by exactly one,
 * exactly one feed item is appended, and the change's event (if any) carries that version as `resource.version`.
 * The feed item is the installer company's assigned after the change — or, when the change removes it, a tombstone
 * for the company removed, whose earlier items of the job are hidden from it (§1 "only while assigned"). The event is
 * addressed to the same installer company and to the job's own company (§1 licensee, §3.2 "to the other side").
 * Moving a job from one installer company to another is two changes: removal, then assignment.
 */
export function commitChange(tx: SandboxTx, ctx: SandboxCtx, change: JobChange): CommittedChange {
  const { before } = change;
  const now = isoAt(ctx.clock);
  const row: InstallJobRow = { ...before, ...change.set, version: before.version + 1, updatedAt: now };
  const removed = before.installerCompanyId !== null && row.installerCompanyId !== before.installerCompanyId;
  if (removed && row.installerCompanyId !== null) {
    throw new Error("a job moves between installer companies in two changes: unassign, then assign");
  }
  writeJob(tx, row);
  for (const document of change.documents ?? []) insertDocument(tx, document);

  const job = projectJob(tx, row);
  const audience = removed ? before.installerCompanyId : row.installerCompanyId;
  let sequence: number;
  if (removed && before.installerCompanyId !== null) {
    hideJobFromInstaller(tx, row.id, before.installerCompanyId);
    sequence = appendFeedItem(tx, {
      jobId: row.id,
      installerCompanyId: before.installerCompanyId,
      kind: "unassigned",
      changedAt: now,
      resource: JSON.stringify(tombstone(row)),
    });
  } else {
    sequence = appendFeedItem(tx, {
      jobId: row.id,
      installerCompanyId: row.installerCompanyId,
      kind: "change",
      changedAt: now,
      resource: JSON.stringify(job),
    });
  }

  const event = change.event?.(job) ?? null;
  const eventId = event
    ? recordEvent(tx, ctx.clock, {
        companyId: row.companyId,
        partnerCompanyId: audience,
        originKeyId: change.originKeyId,
        event: event.name,
        resource: { type: "installJob", id: row.id, version: row.version },
        data: installEventData(event, job),
      })
    : null;
  return { row, job, sequence, eventId };
}

/**
 * A new job at version 1 with its documents and its one feed item (visible to its installer company if it has one).
 * A job is created by the company or the seed; §6.7 names no event for it.
 */
export function insertNewJob(tx: SandboxTx, row: InstallJobRow, documents: InstallDocumentRow[] = []): CommittedChange {
  if (row.version !== 1) throw new Error("a new job starts at version 1");
  insertJob(tx, row);
  for (const document of documents) insertDocument(tx, document);
  const job = projectJob(tx, row);
  const sequence = appendFeedItem(tx, {
    jobId: row.id,
    installerCompanyId: row.installerCompanyId,
    kind: "change",
    changedAt: row.updatedAt,
    resource: JSON.stringify(job),
  });
  return { row, job, sequence, eventId: null };
}

/** §2.2 item of an unassignment: the job's id and that it was unassigned, nothing of the job itself. */
export function tombstone(row: Pick<InstallJobRow, "id" | "version">): {
  id: string;
  version: number;
  unassigned: true;
} {
  return { id: row.id, version: row.version, unassigned: true };
}
