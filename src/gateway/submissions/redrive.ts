import { canonicalJson } from "../../canonical-json.js";
import { badRequest } from "../../http/errors.js";
import { remapHeldPayloads } from "../connections/remap-held.js";
import type { GatewayContext } from "../context.js";
import { checkLeadText } from "../intake/lead-text.js";
import { getProfileRow, getVersionRow } from "../profiles-admin/profiles.js";
import type { SubmissionRow } from "../storage/submissions/index.js";
import { upstreamKey } from "./upstream-key.js";

export interface RedriveInput {
  /**
   * Which submissions it takes (D-308): the dead letter's `failed` ones (the default), or hook payloads `held` because
   * their connection's profile could not map them — those are always mapped again.
   */
  status?: "failed" | "held";
  submissionIds?: string[];
  filter?: { keyId?: string; connectionId?: string; kind?: "lead" | "appointment"; from?: string; to?: string };
  all?: boolean;
  /**
   * Map the stored raw payloads again with this profile version (the fix-the-profile-and-replay loop); held payloads
   * without one map with their connection's current version.
   */
  profileVersionId?: string;
}

/**
 * Sends dead-lettered submissions again: one, a filtered set, or all of a company's (held hook payloads are re-mapped
 * instead: remap-held.ts). With a profile version, the stored raw payload is mapped again first; a body that changed
 * gets a new derived upstream idempotency key (the platform would otherwise answer 409 to the same key with another
 * body, §2.8), an unchanged one keeps its key.
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
  if (!input.submissionIds && !input.filter && !input.all) {
    throw badRequest("give submissionIds, a filter, or all: true", { field: "submissionIds" });
  }
  const version = input.profileVersionId ? await getVersionRow(ctx, companyId, input.profileVersionId) : undefined;
  const kind = version ? (await getProfileRow(ctx, companyId, version.profileId)).kind : undefined;
  const selection = { submissionIds: input.submissionIds, filter: input.filter };
  if (input.status === "held") {
    const held = await ctx.submissions.heldOf(companyId, selection);
    return remapHeldPayloads({ ctx, rows: held, version: version && kind ? { id: version.id, kind } : undefined });
  }

  const rows = await ctx.submissions.failedOf(companyId, selection);
  const skipped: { submissionId: string; reason: string }[] = [];
  let remapped = 0;
  const now = ctx.now().toISOString();
  const redriven: SubmissionRow[] = [];
  let refetched = 0;
  for (const row of rows) {
    if (row.fetchTarget !== null && row.canonicalBody === null) {
      // A notified record whose fetch failed (an expired vendor token, say): fetched again, with the connection's
      // current secrets and bound profile (D-322), never sent without a body.
      await ctx.submissions.requeue(row.id, {
        status: "fetching",
        attempts: 0,
        nextAttemptAt: null,
        lastError: null,
        leaseUntil: null,
        updatedAt: now,
      });
      refetched++;
      continue;
    }
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
      if (!("body" in outcome)) {
        // Records are a hook connection's (D-300): a submission of a key is one body.
        skipped.push({ submissionId: row.id, reason: "mapping: the profile version produces records, not one body" });
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
      if (leadRef.startsWith("sub_") && !(await ctx.submissions.leadOf(row, leadRef))) {
        skipped.push({ submissionId: row.id, reason: "leadId: no such lead submission for this key" });
        continue;
      }
      change = { canonicalBody: body, extras: outcome.extras ?? null, profileVersionId: version.id };
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
    await ctx.submissions.requeue(row.id, reset);
    redriven.push({ ...row, ...reset } as SubmissionRow);
  }
  for (const row of redriven) ctx.running.forwarding?.notify(row);
  if (refetched > 0) ctx.running.fetcher?.notify(ctx.now().getTime());
  return { redriven: redriven.length + refetched, remapped, created: 0, skipped };
}
