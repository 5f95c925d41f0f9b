import { notFound } from "../../../http/errors.js";
import type { CallerCtx } from "../../context.js";
import type { DocumentLink } from "../jobs/install-events.js";
import { readDocument } from "../store/documents.js";
import { readJob } from "../store/jobs.js";

export interface DocumentView extends DocumentLink {
  id: string;
  jobId: string;
  category: string;
  availableAt: string;
  fileName: string;
  contentType: string;
}

/**
 * GET /api/partner/v1/documents/{doc_id} (§2.1 "re-request when needed", §4.1 rule 8 not shown): a fresh signed URL
 * for a document of a job assigned to the caller's company; any other document is 404.
 */
export function documentLink({ ctx, input }: { ctx: CallerCtx; input: { documentId: string } }): DocumentView {
  const document = readDocument(ctx.db, input.documentId);
  const job = document ? readJob(ctx.db, document.jobId) : undefined;
  if (!document || !job || job.installerCompanyId !== ctx.caller.companyId) throw notFound("document not found");
  return {
    id: document.id,
    jobId: document.jobId,
    category: document.category,
    availableAt: document.availableAt,
    fileName: document.fileName,
    contentType: document.contentType,
    ...ctx.documentUrls.link(document.id, ctx.caller.companyId, ctx.clock.now()),
  };
}
