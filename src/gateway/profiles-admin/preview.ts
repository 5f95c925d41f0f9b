import { createHash } from "node:crypto";
import { and, desc, eq, isNotNull } from "drizzle-orm";
import { submissions } from "../../db/schema/index.js";
import type { StoredSample } from "../../db/schema/profile-versions.js";
import { badRequest } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { getVendorKeyRow } from "../keys/vendor-keys.js";
import { compileProfile, type MappingOutcome, type ProfileKind, runGoldenSamples } from "../profiles/index.js";
import { getProfileRow } from "./profiles.js";

/** Drafts are cached by the digest of their text, so typing in the editor re-uses compiled expressions. */
function draftVersionId(expression: string): string {
  return `draft:${createHash("sha256").update(expression).digest("hex").slice(0, 32)}`;
}

/** Maps one payload with a draft expression: the output, validation errors with both paths, the evaluation time. */
export async function previewProfile({
  ctx,
  input,
}: {
  ctx: GatewayContext;
  input: { kind: ProfileKind; expression: string; payload: unknown };
}): Promise<MappingOutcome | { ok: false; kind: "compile"; message: string; line?: number; column?: number }> {
  const compiled = compileProfile(input.expression);
  if (!compiled.ok) return { ok: false, kind: "compile", ...compiled.error };
  return ctx.engine.map({ versionId: draftVersionId(input.expression), ...input });
}

/**
 * Runs golden samples against a draft that is not saved yet: the editor shows pass/fail as the owner types, judged by
 * the same rule that saving and publishing apply.
 */
export async function testDraftSamples({
  ctx,
  companyId,
  profileId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  profileId: string;
  input: { expression: string; samples: StoredSample[] };
}) {
  const profile = getProfileRow(ctx, companyId, profileId);
  return runGoldenSamples(ctx.engine, {
    versionId: draftVersionId(input.expression),
    kind: profile.kind,
    expression: input.expression,
    samples: input.samples,
  });
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/**
 * Replays the last N stored payloads of a key through a draft and diffs each result, field by field, against the
 * canonical body the bound version produced — the "what would change if I published this" check.
 */
export async function replayProfile({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { keyId: string; kind: "lead" | "appointment"; expression: string; limit: number };
}) {
  getVendorKeyRow(ctx, companyId, input.keyId);
  const compiled = compileProfile(input.expression);
  if (!compiled.ok)
    throw badRequest(`expression: ${compiled.error.message}`, { field: "expression", ...compiled.error });
  const rows = ctx.db
    .select()
    .from(submissions)
    .where(
      and(
        eq(submissions.companyId, companyId),
        eq(submissions.vendorKeyId, input.keyId),
        eq(submissions.kind, input.kind),
        isNotNull(submissions.rawPayload),
      ),
    )
    .orderBy(desc(submissions.id))
    .limit(input.limit)
    .all();
  const versionId = draftVersionId(input.expression);
  const results = [];
  for (const row of rows) {
    const payload = JSON.parse(row.rawPayload ?? "null") as unknown;
    const outcome = await ctx.engine.map({ versionId, kind: input.kind, expression: input.expression, payload });
    const before = row.canonicalBody ?? {};
    const changes = outcome.ok ? diffFields(before, outcome.body) : [];
    results.push({ submissionId: row.id, profileVersionId: row.profileVersionId, outcome, changes });
  }
  const changed = results.filter((r) => !r.outcome.ok || r.changes.length > 0).length;
  return { replayed: results.length, changed, results };
}

export function diffFields(before: unknown, after: unknown): FieldChange[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return fields
    .filter((field) => JSON.stringify(a[field]) !== JSON.stringify(b[field]))
    .map((field) => ({ field, before: a[field], after: b[field] }));
}
