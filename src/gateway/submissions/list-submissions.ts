import { notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { type SubmissionFilter, type SubmissionRow, submissionStatusView } from "../storage/submissions/index.js";

export type { SubmissionFilter } from "../storage/submissions/index.js";

/**
 * A row of the owner's submission log: its progress, and where it came from — the vendor key, the hook connection,
 * the vendor's own record id — and, for what is not forwarded, why (held, noted).
 */
export function submissionLogView(row: SubmissionRow) {
  return {
    ...submissionStatusView(row),
    vendorKeyId: row.vendorKeyId,
    connectionId: row.connectionId,
    vendorRecordId: row.vendorRecordId,
    recordAction: row.recordAction,
    test: row.test,
    heldReason: row.heldReason,
    note: row.note,
  };
}

/** A company's submissions, newest first, keyset-paginated so a page deep in the history costs what the first does. */
export async function listSubmissions({
  ctx,
  companyId,
  filter,
}: {
  ctx: GatewayContext;
  companyId: string;
  filter: SubmissionFilter;
}) {
  const rows = await ctx.submissions.listPage(companyId, filter);
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    submissions: page.map(submissionLogView),
    nextCursor: rows.length > filter.limit && last ? last.id : null,
  };
}

/** One submission with everything an owner needs to understand it: raw payload, canonical body, result. */
export async function getSubmissionDetail({
  ctx,
  companyId,
  submissionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  submissionId: string;
}) {
  const row = await ctx.submissions.getOfCompany(submissionId, companyId);
  if (!row) throw notFound();
  return {
    ...submissionLogView(row),
    credentialId: row.credentialId,
    rawPayload: row.rawPayload === null ? null : (JSON.parse(row.rawPayload) as unknown),
    canonicalBody: row.canonicalBody,
    idempotencyKey: row.idempotencyKey,
    upstreamIdempotencyKey: row.upstreamIdempotencyKey,
    purgedAt: row.purgedAt,
    attemptsTimeline: await ctx.submissions.attemptsOf(row.id),
  };
}

export async function listMappingFailures({
  ctx,
  companyId,
  limit,
}: {
  ctx: GatewayContext;
  companyId: string;
  limit: number;
}) {
  return (await ctx.submissions.mappingFailuresOf(companyId, limit)).map((row) => ({
    ...row,
    rawPayload: row.rawPayload === null ? null : (JSON.parse(row.rawPayload) as unknown),
  }));
}
