import type { SandboxCtx } from "../../../context.js";
import { commitChange } from "../../../installer/jobs/commit-change.js";
import { documentRow, type NewDocument } from "../../../installer/jobs/document-row.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

export interface NewInstallDocument extends NewDocument {
  jobId: string;
}

/**
 * Admin: the company makes a document available on a job (§2.1 documents; install.document_available carrying a
 * signed URL bound to the assigned installer company, §6.1). Allowed in every status: a warranty or completion
 * document follows COMPLETE.
 */
export function addInstallDocument({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: NewInstallDocument;
}): CompanyJobView & { documentId: string } {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    const document = documentRow(before.id, input, new Date(ctx.clock.now()).toISOString());
    const installer = before.installerCompanyId;
    const { row } = commitChange(tx, ctx, {
      before,
      set: {},
      documents: [document],
      event: () => ({
        name: "install.document_available",
        document: { id: document.id, category: document.category, availableAt: document.availableAt },
        link: installer ? ctx.documentUrls.link(document.id, installer, ctx.clock.now()) : null,
      }),
      originKeyId: null,
    });
    return { ...companyJobView(tx, row), documentId: document.id };
  });
}
