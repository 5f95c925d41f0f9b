import type jsonata from "jsonata";
import { canonicalJson } from "../../canonical-json.js";
import { badRequest } from "../../http/errors.js";
import { MAX_JSON_DEPTH, textNestsDeeper } from "../../http/json-depth.js";
import type { GatewayContext } from "../context.js";
import { getVendorKeyRow } from "../keys/vendor-keys.js";
import {
  type DroppedKeyWarning,
  droppedWarnings,
  expressionShape,
  type MappingOutcome,
  type ProfileKind,
  parseProfile,
  runGoldenSamples,
} from "../profiles/index.js";
import type { StoredSample } from "../storage/profiles/index.js";
import { getProfileRow } from "./profiles.js";

/**
 * A draft is known to the engine by its company and the shape of its expression: typing in the editor re-uses compiled
 * expressions, and a draft that breached a guardrail stays suspect through an edit of whitespace or comments
 * (shape.ts). The company keeps one tenant's drafts from making another's suspect.
 */
function draftVersionId(companyId: string, expression: string, ast: jsonata.ExprNode): string {
  return `draft:${companyId}:${expressionShape(expression, ast)}`;
}

/**
 * Maps one payload with a draft expression, on the owner tooling's lane: the output, validation errors with both paths,
 * the evaluation time.
 */
export async function previewProfile({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { kind: ProfileKind; expression: string; payload: unknown };
}): Promise<
  | (MappingOutcome & { warnings?: DroppedKeyWarning[] })
  | { ok: false; kind: "compile"; message: string; line?: number; column?: number }
> {
  const parsed = parseProfile(input.expression);
  if (!parsed.ok) return { ok: false, kind: "compile", ...parsed.error };
  const versionId = draftVersionId(companyId, input.expression, parsed.ast);
  const outcome = await ctx.engine.map({ versionId, ...input }, { tooling: true });
  // D-321: a key the canonical body does not have vanishes; the owner is told, per key.
  const warnings = droppedWarnings(outcome);
  return warnings.length > 0 ? { ...outcome, warnings } : outcome;
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
  const profile = await getProfileRow(ctx, companyId, profileId);
  const parsed = parseProfile(input.expression);
  return runGoldenSamples(
    ctx.engine,
    {
      // An expression that does not parse is reported by runGoldenSamples and never evaluated.
      versionId: parsed.ok ? draftVersionId(companyId, input.expression, parsed.ast) : "draft:uncompiled",
      kind: profile.kind,
      expression: input.expression,
      samples: input.samples,
    },
    { tooling: true },
  );
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/**
 * Replays the last N stored payloads of a key through a draft and diffs each result, field by field, against the
 * canonical body the bound version produced — the "what would change if I published this" check. On the owner
 * tooling's lane, a few payloads at a time.
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
  await getVendorKeyRow(ctx, companyId, input.keyId);
  const parsed = parseProfile(input.expression);
  if (!parsed.ok) throw badRequest(`expression: ${parsed.error.message}`, { field: "expression", ...parsed.error });
  const rows = await ctx.submissions.withRawPayload(
    { companyId, vendorKeyId: input.keyId, kind: input.kind },
    input.limit,
  );
  const versionId = draftVersionId(companyId, input.expression, parsed.ast);
  const replayOne = async (row: (typeof rows)[number]) => {
    const outcome = await replayPayload(ctx, { versionId, kind: input.kind, expression: input.expression }, row);
    // A draft that produces records (D-300) changes what the payload makes whole: counted as changed, no field list.
    const changes = outcome.ok && "body" in outcome ? diffFields(row.canonicalBody ?? {}, outcome.body) : [];
    return { submissionId: row.id, profileVersionId: row.profileVersionId, outcome, changes };
  };
  const results: Awaited<ReturnType<typeof replayOne>>[] = new Array(rows.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < rows.length; i = next++) results[i] = await replayOne(rows[i] as (typeof rows)[number]);
  };
  await Promise.all(Array.from({ length: Math.min(REPLAY_CONCURRENCY, rows.length) }, lane));
  const changed = results.filter((r) => !r.outcome.ok || "records" in r.outcome || r.changes.length > 0).length;
  return { replayed: results.length, changed, results };
}

/** Payloads in flight at once per replay: enough to keep the tooling lane's evaluator fed. */
const REPLAY_CONCURRENCY = 4;

/**
 * One stored payload through the draft. A payload stored before intake limited nesting may be deeper than it now
 * allows: it is reported as that guardrail, not walked.
 */
function replayPayload(
  ctx: GatewayContext,
  draft: { versionId: string; kind: ProfileKind; expression: string },
  row: { rawPayload: string | null },
): Promise<MappingOutcome> {
  const raw = row.rawPayload ?? "null";
  if (textNestsDeeper(raw, MAX_JSON_DEPTH)) {
    const message = `payload nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`;
    return Promise.resolve({ ok: false, kind: "guardrail", limit: "stack", message, elapsedMs: 0 });
  }
  return ctx.engine.map({ ...draft, payload: JSON.parse(raw) as unknown }, { tooling: true });
}

export function diffFields(before: unknown, after: unknown): FieldChange[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return fields
    .filter((field) => canonicalJson(a[field]) !== canonicalJson(b[field]))
    .map((field) => ({ field, before: a[field], after: b[field] }));
}
