import type { Span } from "@opentelemetry/api";
import { canonicalDigest } from "../../canonical-json.js";
import { appointmentSchema } from "../../contract/appointment.js";
import { leadSchema } from "../../contract/lead.js";
import { validationError } from "../../http/app.js";
import { ApiError, badRequest, conflict, forbidden, notFound } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import {
  EngineClosedError,
  EngineOverloadedError,
  EngineUnavailableError,
  type InlineResult,
  type MapInput,
  type MappingOutcome,
} from "../profiles/index.js";
import { type SubmissionView, submissionRow, submissionStatusView } from "../storage/submissions/index.js";
import { contactOf } from "../submissions/contact.js";
import { upstreamKey } from "../submissions/upstream-key.js";
import { childSpan, endFailed } from "../tracing/index.js";
import type { VendorKey } from "./authenticate-vendor-key.js";
import { checkLeadText } from "./lead-text.js";

export type SubmissionKind = "lead" | "appointment";

const SCOPE: Record<SubmissionKind, "leads:write" | "appointments:write"> = {
  lead: "leads:write",
  appointment: "appointments:write",
};

/** §8: an Idempotency-Key header is up to 128 characters from A-Z a-z 0-9 . _ : - */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AcceptInput {
  kind: SubmissionKind;
  /** The native payload as received (text) and parsed. */
  raw: string;
  payload: unknown;
  /** A lead's optional `Idempotency-Key` header. */
  idempotencyHeader?: string;
}

export type AcceptResult = { replay: false; submission: SubmissionView } | { replay: true; submission: SubmissionView };

/** §5.4: a key lacking the scope for an operation gets 403 naming the scope. */
export function assertScope(key: VendorKey, kind: SubmissionKind): void {
  const scope = SCOPE[kind];
  if (!key.scopes.includes(scope)) throw forbidden(`this key lacks the scope ${scope}`, { scope });
}

/**
 * Accepts one vendor request: map with the key's profile, validate against the spec's body (§2.7/§2.8), and commit
 * before answering — the committed row is what forwarding works from, so an accepted submission is never lost.
 */
export async function acceptSubmission({
  ctx,
  key,
  input,
  span,
}: {
  ctx: GatewayContext;
  key: VendorKey;
  input: AcceptInput;
  /** The request's span (tracing on): the mapping and the commit are its children, the row carries its trace. */
  span?: Span | undefined;
}): Promise<AcceptResult> {
  assertScope(key, input.kind);
  // Compared only between submissions of one idempotency key: without a key it is neither needed nor stored.
  // A method, not an arrow function (D-382).
  let digest: string | undefined;
  const lazy = {
    payloadDigest(): string {
      digest ??= canonicalDigest(input.payload);
      return digest;
    },
  };

  if (input.idempotencyHeader !== undefined && !IDEMPOTENCY_KEY.test(input.idempotencyHeader)) {
    throw badRequest("Idempotency-Key: up to 128 characters from A-Z a-z 0-9 . _ : -", { field: "Idempotency-Key" });
  }
  if (input.kind === "lead" && input.idempotencyHeader) {
    const replay = await findReplay(ctx, key, "lead", input.idempotencyHeader, lazy.payloadDigest());
    if (replay) return replay;
  }

  // Mapped inline (most requests of a proven version) or without a profile, the body is here without an await.
  const mapping = childSpan(ctx.tracing, "map payload", span);
  let result: Mapped;
  try {
    const mapped = mapPayload(ctx, key, input);
    result = "then" in mapped ? await mapped : mapped;
  } catch (error) {
    endFailed(mapping, error);
    throw error;
  }
  const { body: canonical, extras, profileVersionId } = result;
  if (profileVersionId !== null) mapping.setAttribute("gateway.profile_version.id", profileVersionId);
  mapping.end();
  const body = input.kind === "lead" ? checkLeadText(canonical) : canonical;

  const idempotencyKey =
    input.kind === "appointment"
      ? String((body as { idempotencyKey: string }).idempotencyKey)
      : input.idempotencyHeader;
  if (input.kind === "appointment" && idempotencyKey) {
    const replay = await findReplay(ctx, key, "appointment", idempotencyKey, lazy.payloadDigest());
    if (replay) return replay;
    await checkLeadReference(ctx, key, String((body as { leadId: string }).leadId));
  }

  // One clock reading for the id and createdAt: ids are time-ordered, and retention finds old rows by id.
  const now = ctx.now();
  const row = submissionRow({
    id: newId("sub", now.getTime()),
    companyId: key.companyId,
    vendorKeyId: key.id,
    credentialId: key.credentialId,
    kind: input.kind,
    status: "queued",
    rawPayload: input.raw,
    canonicalBody: body,
    profileVersionId,
    idempotencyKey: idempotencyKey ?? null,
    payloadDigest: idempotencyKey ? lazy.payloadDigest() : null,
    upstreamIdempotencyKey: input.kind === "appointment" && idempotencyKey ? upstreamKey(key.id, idempotencyKey) : null,
    ...contactOf(input.kind, body),
    extras: extras ?? null,
    createdAt: now.toISOString(),
    // Its attempts and settlement, in whatever process, join the request's trace (docs/tracing.md).
    traceParent: span ? ctx.tracing.traceparent(span) : null,
  });
  const commit = childSpan(ctx.tracing, "commit submission", span);
  try {
    await ctx.submissions.insert(row);
  } catch (error) {
    endFailed(commit, error);
    // Another request committed the same idempotency key between our check and this commit.
    const replay = idempotencyKey
      ? await findReplay(ctx, key, input.kind, idempotencyKey, lazy.payloadDigest())
      : undefined;
    if (replay) return replay;
    throw error;
  }
  commit.end();
  ctx.running.forwarding?.notify(row);
  return { replay: false, submission: submissionStatusView(row) };
}

async function findReplay(
  ctx: GatewayContext,
  key: VendorKey,
  kind: SubmissionKind,
  idempotencyKey: string,
  payloadDigest: string,
): Promise<AcceptResult | undefined> {
  const existing = await ctx.submissions.findByIdempotencyKey(key.id, kind, idempotencyKey);
  if (!existing) return undefined;
  if (existing.payloadDigest !== payloadDigest) {
    throw conflict("idempotency key reused with a different payload", { submissionId: existing.id });
  }
  return { replay: true, submission: submissionStatusView(existing) };
}

interface Mapped {
  body: Record<string, unknown>;
  /** The vendor's other details the profile kept apart (D-320): stored with the submission, never sent upstream. */
  extras?: Record<string, unknown> | undefined;
  profileVersionId: string | null;
}

function mapPayload(ctx: GatewayContext, key: VendorKey, input: AcceptInput): Mapped | Promise<Mapped> {
  const versionId = input.kind === "lead" ? key.leadProfileVersionId : key.appointmentProfileVersionId;
  const schema = input.kind === "lead" ? leadSchema : appointmentSchema;
  if (!versionId) {
    // A key with no profile accepts canonical bodies.
    const parsed = schema.safeParse(input.payload);
    if (!parsed.success) throw validationError(parsed.error);
    return { body: parsed.data as Record<string, unknown>, profileVersionId: null };
  }
  // A version read before (nearly every request) is here without an await.
  const version = ctx.profiles.expressionOf(key.companyId, versionId);
  if (version instanceof Promise) return version.then((found) => mapWith(ctx, key, input, versionId, found));
  return mapWith(ctx, key, input, versionId, version);
}

function mapWith(
  ctx: GatewayContext,
  key: VendorKey,
  input: AcceptInput,
  versionId: string,
  version: { expression: string } | undefined,
): Mapped | Promise<Mapped> {
  if (!version) throw notFound("profile version not found");
  const { expression } = version;
  const mapInput: MapInput = {
    versionId,
    kind: input.kind,
    expression,
    payload: input.payload,
    payloadChars: input.raw.length,
  };
  const tried = ctx.engine.tryInline(mapInput);
  if (tried.outcome) return mappedBody(ctx, key, input, versionId, tried.outcome);
  return mapOrUnavailable(ctx, mapInput, tried).then((outcome) => mappedBody(ctx, key, input, versionId, outcome));
}

/**
 * The canonical body a mapping gave, or the error it answers: 400 (validation, mapping), 422 (a guardrail, once the
 * refused payload is recorded).
 */
function mappedBody(
  ctx: GatewayContext,
  key: VendorKey,
  input: AcceptInput,
  versionId: string,
  outcome: MappingOutcome,
): Mapped | Promise<never> {
  if (outcome.ok && "records" in outcome) {
    // A vendor key's request is one submission; records are what a hook connection stores (docs/decisions.md, D-300).
    // The owner bound a connection's profile to a key: recorded for the owner like a guardrail, not blamed on the vendor.
    return refused(ctx, key, input, versionId, RECORDS_ON_A_KEY);
  }
  if (outcome.ok) {
    return { body: outcome.body as Record<string, unknown>, extras: outcome.extras, profileVersionId: versionId };
  }
  if (outcome.kind === "validation") {
    const details: Record<string, unknown> = { field: outcome.field };
    if (outcome.sourcePath) details.sourcePath = outcome.sourcePath;
    throw badRequest(`${outcome.field}: ${outcome.message}`, details);
  }
  if (outcome.kind === "mapping") {
    const details: Record<string, unknown> = { profileVersionId: versionId };
    if (outcome.position !== undefined) details.position = outcome.position;
    throw badRequest(`mapping failed: ${outcome.message}`, details);
  }
  return refused(ctx, key, input, versionId, outcome.message);
}

const RECORDS_ON_A_KEY =
  "the profile produced records, which only a hook connection takes; a key's profile maps one body";

async function refused(
  ctx: GatewayContext,
  key: VendorKey,
  input: AcceptInput,
  versionId: string,
  message: string,
): Promise<never> {
  await ctx.submissions.recordMappingFailure({
    companyId: key.companyId,
    vendorKeyId: key.id,
    profileVersionId: versionId,
    message,
    rawPayload: input.raw,
    createdAt: ctx.now().toISOString(),
  });
  throw new ApiError("unprocessable", `mapping stopped: ${message}`, {
    details: { profileVersionId: versionId },
  });
}

/**
 * The engine throws only when it cannot evaluate at all (overloaded, closed, no evaluator starts): the request is
 * fine, the gateway is busy — 503 with retry-after, not a mapping error recorded against the owner.
 */
async function mapOrUnavailable(ctx: GatewayContext, input: MapInput, tried: InlineResult) {
  try {
    return await ctx.engine.map(input, {}, tried);
  } catch (error) {
    if (
      error instanceof EngineOverloadedError ||
      error instanceof EngineUnavailableError ||
      error instanceof EngineClosedError
    ) {
      throw new ApiError("unavailable", "profile evaluation is busy; retry shortly", {
        headers: { "retry-after": "1" },
        cause: error,
      });
    }
    throw error;
  }
}

/** A `sub_…` leadId names a lead submission of the same key (forwarding sends it with the real `lead_…` id). */
async function checkLeadReference(ctx: GatewayContext, key: VendorKey, leadId: string): Promise<void> {
  if (!leadId.startsWith("sub_")) return;
  if (!(await ctx.submissions.leadOf({ companyId: key.companyId, vendorKeyId: key.id }, leadId))) {
    throw notFound("leadId: no such lead submission for this key");
  }
}
