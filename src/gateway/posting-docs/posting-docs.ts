import { conflict } from "../../http/errors.js";
import { keyPrefix } from "../../log.js";
import type { GatewayContext } from "../context.js";
import { companyRule } from "../forwarding/limits.js";
import { answersOf, type IntakeOperation } from "../intake/intake-answers.js";
import { MAX_WAIT_SECONDS } from "../intake/prefer-wait.js";
import { INTAKE_PATHS } from "../intake/routes.js";
import { getVendorKeyRow } from "../keys/vendor-keys.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import { CANONICAL_EXAMPLES } from "./canonical-examples.js";
import { canonicalFields, requiredFields } from "./canonical-fields.js";
import { profileReads, type SourceRead } from "./profile-reads.js";
import { sampleTypes } from "./sample-types.js";

type Kind = "lead" | "appointment";

const SCOPES: Record<Kind, "leads:write" | "appointments:write"> = {
  lead: "leads:write",
  appointment: "appointments:write",
};
const STATUS_PATH = "/api/inbound/submissions/{submissionId}";

/**
 * A vendor key's posting docs (D-325): where the vendor sends, how it authenticates, the fields the bound profile
 * version reads (derived from its expression, D-326), the record's rules, an example from its golden samples, every
 * answer of the intake's catalogue (D-327) and the limits in force (D-328). Generated at each request from what the
 * key is bound to now, so they stay true when a new version is bound; nothing of the company's beyond this key's
 * bindings, and never the key's secret.
 */
export async function postingDocs({
  ctx,
  companyId,
  keyId,
}: {
  ctx: GatewayContext;
  companyId: string;
  keyId: string;
}) {
  const key = await getVendorKeyRow(ctx, companyId, keyId);
  if (key.revokedAt) throw conflict("this key is revoked: no vendor can post with it");
  if (await ctx.connections.ofVendorKey(key.id)) {
    throw conflict("this key belongs to a hook connection: its vendor posts to the connection's hook URL");
  }
  const baseUrl = ctx.settings.publicUrl.replace(/\/+$/, "");
  const kinds = (["lead", "appointment"] as const).filter((kind) => key.scopes.includes(SCOPES[kind]));
  return {
    key: {
      id: key.id,
      keyPrefix: keyPrefix(key.id),
      name: key.name,
      environment: ctx.settings.mode === "live" ? ("live" as const) : ("test" as const),
      responseMode: key.responseMode,
    },
    generatedAt: ctx.now().toISOString(),
    baseUrl,
    authentication: {
      header: "x-api-key" as const,
      value: `${keyPrefix(key.id)}… (the whole key you were given, <keyId>.<secret>)`,
    },
    operations: await Promise.all(kinds.map((kind) => operationDocs(ctx, companyId, key, kind, baseUrl))),
    status: {
      method: "GET" as const,
      path: STATUS_PATH,
      url: `${baseUrl}${STATUS_PATH}`,
      answers: answers("status"),
    },
    rateLimits: await rateLimits(ctx, companyId),
  };
}

export type PostingDocs = Awaited<ReturnType<typeof postingDocs>>;

async function operationDocs(ctx: GatewayContext, companyId: string, key: VendorKeyRow, kind: Kind, baseUrl: string) {
  const versionId = kind === "lead" ? key.leadProfileVersionId : key.appointmentProfileVersionId;
  const version = versionId ? await ctx.profiles.getVersionOfCompany(versionId, companyId) : undefined;
  const required = requiredFields(kind);
  const common = {
    kind,
    method: "POST" as const,
    path: INTAKE_PATHS[kind],
    url: `${baseUrl}${INTAKE_PATHS[kind]}`,
    scope: SCOPES[kind],
    record: canonicalFields(kind),
    headers: headersOf(kind),
    answers: answers(kind),
  };
  if (!version) {
    // No profile: the body is the canonical record itself, under the Inbound API's own names (§2.7/§2.8).
    const fields = canonicalFields(kind).map((f): SourceRead & { types: string[] } => ({
      path: f.field,
      feeds: [f.field],
      types: [f.type],
      need: f.required ? "required" : "optional",
    }));
    return { ...common, profile: null, fields, example: { name: "a canonical body", body: CANONICAL_EXAMPLES[kind] } };
  }
  const payloads = version.samples.map((sample) => sample.payload);
  const fields = profileReads(version.expression, required).map((read): SourceRead & { types: string[] } => ({
    ...read,
    types: sampleTypes(payloads, read.path),
  }));
  const example = version.samples.find((sample) => "body" in sample.expect);
  return {
    ...common,
    profile: { versionId: version.id, version: version.version, publishedAt: version.publishedAt },
    fields,
    example: example ? { name: example.name, body: example.payload } : null,
  };
}

function headersOf(kind: Kind) {
  const headers = [
    { name: "content-type", required: true, description: "application/json" },
    { name: "x-api-key", required: true, description: "your key" },
  ];
  if (kind === "lead") {
    headers.push({
      name: "idempotency-key",
      required: false,
      description:
        "up to 128 characters from A-Z a-z 0-9 . _ : -; a repeat with the same payload is answered 200, not stored twice",
    });
  }
  headers.push({
    name: "prefer",
    required: false,
    description: `wait=N (N up to ${MAX_WAIT_SECONDS}): answer with the platform's own result when it comes within N seconds; respond-async: answer 202 at once`,
  });
  return headers;
}

function answers(operation: IntakeOperation) {
  return answersOf(operation).map((answer) => ({
    status: answer.status,
    when: answer.when,
    retry: answer.retry,
    headers: [...(answer.headers ?? [])],
    waitedOnly: answer.waited === true,
  }));
}

/** The limits in force for this company (§8, D-328): the gateway's intake bucket and forwarding's levels. */
async function rateLimits(ctx: GatewayContext, companyId: string) {
  const limits = ctx.settings.upstreamLimits;
  const own = await ctx.tenants.companyLimits(companyId);
  const perMinute = (rule: { limit: number; windowMs: number }) => ({
    limit: rule.limit,
    windowSeconds: rule.windowMs / 1000,
  });
  return {
    intake: { ratePerSecond: ctx.settings.intakeLimit.ratePerSecond, burst: ctx.settings.intakeLimit.burst },
    forwarding: {
      perCredential: perMinute(companyRule(limits.perCredential, own?.perCredential)),
      perCompany: perMinute(companyRule(limits.perCompany, own?.perCompany)),
      egress: perMinute(limits.egress),
    },
  };
}
