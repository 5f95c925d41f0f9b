import { notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { type SubmissionFilter, type SubmissionRow, submissionStatusView } from "../storage/submissions/index.js";
import { personMatch } from "./person-match.js";
import { personOf } from "./person-view.js";

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
    // D-318, D-320: who it is about, and the vendor's other details the profile kept apart.
    person: personOf(row.kind === "lead" ? row.canonicalBody : null),
    extras: row.extras,
  };
}

/**
 * A company's submissions, newest first, keyset-paginated so a page deep in the history costs what the first does;
 * found by a person's e-mail or phone as intake normalised them (D-319), or by text in their extras (D-320).
 */
export async function listSubmissions({
  ctx,
  companyId,
  filter: asked,
}: {
  ctx: GatewayContext;
  companyId: string;
  filter: SubmissionFilter;
}) {
  const { email, phone } = personMatch({ email: asked.email, phone: asked.phone });
  const filter: SubmissionFilter = { ...asked };
  delete filter.email;
  delete filter.phone;
  if (asked.email !== undefined) filter.email = email ?? "";
  if (asked.phone !== undefined) filter.phone = phone ?? "";
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
