import { and, count, eq } from "drizzle-orm";
import { notFound } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import type { CallerCtx } from "../../context.js";
import { projectNotes, projects } from "../../db/schema/index.js";
import { recordEvent } from "../../events/record-event.js";
import { newId } from "../../ids.js";
import { type ContractorJob, toContractorJob } from "./contractor-job.js";

export interface AppendedNote {
  note: { id: string; note: string; createdAt: string };
  job: ContractorJob;
}

/**
 * POST /api/inbound/jobs/{job_id}/status (§4.2): appends a timestamped installer note and notifies the company: a
 * `project_notes` row and a `project.note_added` event for the company's own subscriptions (licensee only,
 * events/audience.ts), in the same transaction. resource is `{type: "project", id, version}`, the version counting
 * the project's notes. A job outside the key's contractor record — another record's, another company's, or none — is
 * 404 alike.
 */
export function appendJobNote({
  ctx,
  input,
}: {
  ctx: CallerCtx;
  input: { jobId: string; note: string };
}): AppendedNote {
  const { contractorId, companyId, keyId } = ctx.caller;
  const now = isoAt(ctx.clock);
  return ctx.db.transaction((tx) => {
    const job = contractorId
      ? tx
          .select()
          .from(projects)
          .where(
            and(
              eq(projects.id, input.jobId),
              eq(projects.contractorId, contractorId),
              eq(projects.companyId, companyId),
            ),
          )
          .get()
      : undefined;
    if (!job) throw notFound("job not found");

    const entry = `[${now}] ${input.note}`;
    const installerNote = job.installerNote ? `${job.installerNote}\n${entry}` : entry;
    tx.update(projects).set({ installerNote, lastUpdated: now }).where(eq(projects.id, job.id)).run();
    const noteId = newId("note");
    tx.insert(projectNotes).values({ id: noteId, projectId: job.id, keyId, note: input.note, createdAt: now }).run();
    const [notes] = tx.select({ n: count() }).from(projectNotes).where(eq(projectNotes.projectId, job.id)).all();
    recordEvent(tx, ctx.clock, {
      companyId,
      originKeyId: keyId,
      event: "project.note_added",
      resource: { type: "project", id: job.id, version: notes?.n ?? 1 },
      data: {
        projectId: job.id,
        workOrderNo: job.workOrderNo,
        noteId,
        note: input.note,
        createdAt: now,
        contractorId,
        keyId,
      },
    });
    return {
      note: { id: noteId, note: input.note, createdAt: now },
      job: toContractorJob({ ...job, installerNote, lastUpdated: now }),
    };
  });
}
