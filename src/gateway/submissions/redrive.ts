import { and, eq, gte, inArray, lte, type SQL } from "drizzle-orm";
import { canonicalJson } from "../../canonical-json.js";
import { submissions } from "../../db/schema/index.js";
import { badRequest } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { upstreamKey } from "../intake/accept-submission.js";
import { checkLeadText } from "../intake/lead-text.js";
import type { SubmissionRow } from "../intake/submission-view.js";
import { getProfileRow, getVersionRow } from "../profiles-admin/profiles.js";
import { leadOf } from "./lead-of.js";

export interface RedriveInput {
  submissionIds?: string[];
  filter?: { keyId?: string; kind?: "lead" | "appointment"; from?: string; to?: string };
  all?: boolean;
  /** Map the stored raw payloads again with this profile version (the fix-the-profile-and-replay loop). */
  profileVersionId?: string;
}

/**
 * Sends dead-lettered submissions again: one, a filtered set, or all of a company's. With a profile version, the
 * stored raw payload is mapped again first; a body that changed gets a new derived upstream idempotency key (the
 * platform would otherwise answer 409 to the same key with another body, §2.8), an unchanged one keeps its key.
 */
export async function redriveSubmissions({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: RedriveInput;
}) {
  const where: SQL[] = [eq(submissions.companyId, companyId), eq(submissions.status, "failed")];
  if (input.submissionIds) where.push(inArray(submissions.id, input.submissionIds));
  else if (input.filter) {
    if (input.filter.keyId) where.push(eq(submissions.vendorKeyId, input.filter.keyId));
    if (input.filter.kind) where.push(eq(submissions.kind, input.filter.kind));
    if (input.filter.from) where.push(gte(submissions.createdAt, input.filter.from));
    if (input.filter.to) where.push(lte(submissions.createdAt, input.filter.to));
  } else if (!input.all) {
    throw badRequest("give submissionIds, a filter, or all: true", { field: "submissionIds" });
  }
  const version = input.profileVersionId ? getVersionRow(ctx, companyId, input.profileVersionId) : undefined;
  const kind = version ? getProfileRow(ctx, companyId, version.profileId).kind : undefined;

  const rows = ctx.db
    .select()
    .from(submissions)
    .where(and(...where))
    .all();
  const skipped: { submissionId: string; reason: string }[] = [];
  let remapped = 0;
  const now = ctx.now().toISOString();
  const redriven: SubmissionRow[] = [];
  for (const row of rows) {
    let change: Partial<SubmissionRow> = {};
    if (version) {
      if (kind !== row.kind) {
        skipped.push({ submissionId: row.id, reason: `profile version maps ${kind}s, not ${row.kind}s` });
        continue;
      }
      if (row.rawPayload === null) {
        skipped.push({ submissionId: row.id, reason: "raw payload purged" });
        continue;
      }
      const outcome = await ctx.engine.map({
        versionId: version.id,
        kind: row.kind,
        expression: version.expression,
        payload: JSON.parse(row.rawPayload) as unknown,
      });
      if (!outcome.ok) {
        skipped.push({ submissionId: row.id, reason: `mapping: ${outcome.message}` });
        continue;
      }
      let body = outcome.body as Record<string, unknown>;
      if (row.kind === "lead") {
        try {
          body = checkLeadText(body);
        } catch (error) {
          skipped.push({ submissionId: row.id, reason: (error as Error).message });
          continue;
        }
      }
      // A re-mapped appointment's `sub_…` reference is checked as intake checks it: a lead of its own key.
      const leadRef = row.kind === "appointment" ? String(body.leadId ?? "") : "";
      if (leadRef.startsWith("sub_") && !leadOf(ctx, row, leadRef)) {
        skipped.push({ submissionId: row.id, reason: "leadId: no such lead submission for this key" });
        continue;
      }
      change = { canonicalBody: body, profileVersionId: version.id };
      if (canonicalJson(body) !== canonicalJson(row.canonicalBody)) {
        remapped++;
        const generation = row.upstreamKeyGeneration + 1;
        change.upstreamKeyGeneration = generation;
        if (row.kind === "appointment") {
          change.upstreamIdempotencyKey = upstreamKey(row.vendorKeyId, String(body.idempotencyKey), generation);
        }
      }
    }
    const reset: Partial<SubmissionRow> = {
      ...change,
      status: "queued",
      attempts: 0,
      nextAttemptAt: null,
      lastError: null,
      upstreamStatus: null,
      result: null,
      firstSentAt: null,
      waitingReason: null,
      updatedAt: now,
    };
    ctx.db.update(submissions).set(reset).where(eq(submissions.id, row.id)).run();
    redriven.push({ ...row, ...reset } as SubmissionRow);
  }
  for (const row of redriven) ctx.forwarding?.notify(row);
  return { redriven: redriven.length, remapped, skipped };
}
