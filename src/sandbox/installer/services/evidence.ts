import { createHash } from "node:crypto";
import { ApiError } from "../../../http/errors.js";
import type { CallerCtx } from "../../context.js";
import type { EvidenceKind, InstallEvidenceRow } from "../../db/schema/index.js";
import { newId } from "../../ids.js";
import type { WriteCtx } from "../idempotency/answer-write.js";
import { assignedJob } from "../jobs/assigned-job.js";
import { evidenceOfJob, insertEvidence } from "../store/evidence.js";

export interface Evidence {
  id: string;
  jobId: string;
  kind: EvidenceKind;
  fileName: string;
  contentType: string;
  bytes: number;
  sha256: string;
  uploadedAt: string;
}

export interface EvidenceUpload {
  jobId: string;
  kind: EvidenceKind;
  fileName: string;
  contentType: string;
  contentBase64: string;
}

/**
 * POST /api/partner/v1/jobs/{job_id}/evidence — the completion upload stand-in (§3.1 rule 4 "photos and documents
 * uploaded elsewhere", §4.1 rule 8 not shown; docs/decisions.md). One file per request, kept as kind, name, type, size
 * and digest: what the company's acceptance counts. Refused with 422 on a cancelled job and once the completion was
 * accepted. Evidence is not part of the §2.1 projection, so the job's version does not change.
 */
export function uploadEvidence({ ctx, input }: { ctx: WriteCtx; input: EvidenceUpload }): Evidence {
  const job = assignedJob(ctx.tx, ctx.caller.companyId, input.jobId);
  if (job.status === "CANCELLED") throw refused("the job is CANCELLED");
  if (job.completionAcceptedAt !== null) throw refused("the completion report was already accepted");
  const content = Buffer.from(input.contentBase64, "base64");
  const row: InstallEvidenceRow = {
    id: newId("evd"),
    jobId: job.id,
    installerCompanyId: ctx.caller.companyId,
    keyId: ctx.caller.keyId,
    kind: input.kind,
    fileName: input.fileName,
    contentType: input.contentType,
    bytes: content.byteLength,
    sha256: createHash("sha256").update(content).digest("hex"),
    uploadedAt: new Date(ctx.clock.now()).toISOString(),
  };
  insertEvidence(ctx.tx, row);
  return evidenceView(row);
}

/** GET /api/partner/v1/jobs/{job_id}/evidence: what the caller's company uploaded for a job assigned to it. */
export function listEvidence({ ctx, input }: { ctx: CallerCtx; input: { jobId: string } }): Evidence[] {
  const job = assignedJob(ctx.db, ctx.caller.companyId, input.jobId);
  return evidenceOfJob(ctx.db, job.id)
    .filter((e) => e.installerCompanyId === ctx.caller.companyId)
    .map(evidenceView);
}

function evidenceView(row: InstallEvidenceRow): Evidence {
  return {
    id: row.id,
    jobId: row.jobId,
    kind: row.kind,
    fileName: row.fileName,
    contentType: row.contentType,
    bytes: row.bytes,
    sha256: row.sha256,
    uploadedAt: row.uploadedAt,
  };
}

const refused = (why: string) => new ApiError("unprocessable", `evidence: ${why}`, { details: { field: "evidence" } });
