import { forbidden, notFound } from "../../../http/errors.js";
import type { CallerCtx } from "../../context.js";
import { readDocument } from "../store/documents.js";
import { readJob } from "../store/jobs.js";

export interface DocumentContent {
  fileName: string;
  contentType: string;
  content: Buffer;
}

/**
 * GET /api/partner/v1/documents/{doc_id}/content?expires=…&signature=… — the signed URL (§2.1). Bound to the installer
 * company: the key must be of the company the URL was made for and the job still assigned to it (else 404, as any
 * document it cannot see); a URL past its expiry or with a signature that is not this company's is 403 — ask for a
 * fresh one by document id.
 */
export function readDocumentContent({
  ctx,
  input,
}: {
  ctx: CallerCtx;
  input: { documentId: string; expires: string; signature: string };
}): DocumentContent {
  const document = readDocument(ctx.db, input.documentId);
  const job = document ? readJob(ctx.db, document.jobId) : undefined;
  if (!document || !job || job.installerCompanyId !== ctx.caller.companyId) throw notFound("document not found");
  const check = ctx.documentUrls.check(document.id, ctx.caller.companyId, input, ctx.clock.now());
  if (check === "expired") {
    throw forbidden("document URL expired; GET /api/partner/v1/documents/{doc_id} for a fresh one", {
      reason: "expired",
    });
  }
  if (check === "invalid") throw forbidden("document URL signature is not valid for this key's company");
  return { fileName: document.fileName, contentType: document.contentType, content: document.content };
}
