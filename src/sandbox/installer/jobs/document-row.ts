import type { InstallDocumentRow } from "../../db/schema/index.js";
import { newId } from "../../ids.js";

export interface NewDocument {
  /** §2.1 documents: SCOPE, or a category the catalogue mentions (PERMIT, MANUAL, WARRANTY, COMPLETION, …). */
  category: string;
  fileName?: string;
  contentType?: string;
  /** UTF-8 text content; a short text naming the document when absent. */
  content?: string;
}

/** A document row of a job, made by the company's side or the seed. */
export function documentRow(
  jobId: string,
  input: NewDocument & { id?: string },
  availableAt: string,
): InstallDocumentRow {
  const id = input.id ?? newId("doc");
  const fileName = input.fileName ?? `${input.category.toLowerCase()}-${id}.txt`;
  const content = input.content ?? `Sandbox ${input.category} document ${id} for ${jobId}.\n`;
  return {
    id,
    jobId,
    category: input.category,
    fileName,
    contentType: input.contentType ?? "text/plain; charset=utf-8",
    content: Buffer.from(content, "utf8"),
    availableAt,
  };
}
