import { and, desc, eq, gte, lt, lte, type SQL } from "drizzle-orm";
import { mappingFailures, submissionAttempts, submissions } from "../../db/schema/index.js";
import { notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { submissionView } from "../intake/submission-view.js";

export interface SubmissionFilter {
  status?: "queued" | "waiting" | "forwarding" | "forwarded" | "failed";
  keyId?: string;
  kind?: "lead" | "appointment";
  /** ISO timestamps bounding createdAt. */
  from?: string;
  to?: string;
  /** The last id of the previous page: ids are time-ordered, so "older than the cursor" is a keyset seek. */
  cursor?: string;
  limit: number;
}

/** A company's submissions, newest first, keyset-paginated so a page deep in the history costs what the first does. */
export function listSubmissions({
  ctx,
  companyId,
  filter,
}: {
  ctx: GatewayContext;
  companyId: string;
  filter: SubmissionFilter;
}) {
  const where: SQL[] = [eq(submissions.companyId, companyId)];
  if (filter.status) where.push(eq(submissions.status, filter.status));
  if (filter.keyId) where.push(eq(submissions.vendorKeyId, filter.keyId));
  if (filter.kind) where.push(eq(submissions.kind, filter.kind));
  if (filter.from) where.push(gte(submissions.createdAt, filter.from));
  if (filter.to) where.push(lte(submissions.createdAt, filter.to));
  if (filter.cursor) where.push(lt(submissions.id, filter.cursor));
  const rows = ctx.db
    .select()
    .from(submissions)
    .where(and(...where))
    .orderBy(desc(submissions.id))
    .limit(filter.limit + 1)
    .all();
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    submissions: page.map((row) => ({ ...submissionView(row), vendorKeyId: row.vendorKeyId })),
    nextCursor: rows.length > filter.limit && last ? last.id : null,
  };
}

/** One submission with everything an owner needs to understand it: raw payload, canonical body, result. */
export function getSubmissionDetail({
  ctx,
  companyId,
  submissionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  submissionId: string;
}) {
  const row = ctx.db
    .select()
    .from(submissions)
    .where(and(eq(submissions.id, submissionId), eq(submissions.companyId, companyId)))
    .get();
  if (!row) throw notFound();
  return {
    ...submissionView(row),
    vendorKeyId: row.vendorKeyId,
    credentialId: row.credentialId,
    rawPayload: row.rawPayload === null ? null : (JSON.parse(row.rawPayload) as unknown),
    canonicalBody: row.canonicalBody,
    idempotencyKey: row.idempotencyKey,
    upstreamIdempotencyKey: row.upstreamIdempotencyKey,
    purgedAt: row.purgedAt,
    attemptsTimeline: ctx.db
      .select()
      .from(submissionAttempts)
      .where(eq(submissionAttempts.submissionId, row.id))
      .orderBy(submissionAttempts.id)
      .all(),
  };
}

export function listMappingFailures({
  ctx,
  companyId,
  limit,
}: {
  ctx: GatewayContext;
  companyId: string;
  limit: number;
}) {
  return ctx.db
    .select()
    .from(mappingFailures)
    .where(eq(mappingFailures.companyId, companyId))
    .orderBy(desc(mappingFailures.id))
    .limit(limit)
    .all()
    .map((row) => ({ ...row, rawPayload: row.rawPayload === null ? null : (JSON.parse(row.rawPayload) as unknown) }));
}
