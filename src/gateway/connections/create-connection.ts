import { digestSecret, newKeyId, newKeySecret } from "../../contract/api-key.js";
import { ApiError, badRequest, conflict, notFound } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import { getCredentialRow } from "../credentials/upstream-credentials.js";
import { runGoldenSamples } from "../profiles/index.js";
import { assertBindable } from "../profiles-admin/bind.js";
import type { ConnectionRow } from "../storage/connections/index.js";
import type { ProfileRow, ProfileVersionRow } from "../storage/profiles/index.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import { sealSecrets } from "./connection-secrets.js";
import { publicConnection } from "./connection-view.js";
import { connectionSettingsSchema, type HookDeclarations } from "./declarations.js";
import { digestHookToken, hookUrl, isHookToken, newHookToken } from "./hook-token.js";
import { presetGoldenSamples } from "./preset-golden.js";
import { fetchSecretNames, type LoadedPreset } from "./presets/index.js";
import { secretsNamedBy } from "./proofs/index.js";

/** What the owner gives to connect a vendor (docs/connections.md, "Connecting a vendor"). */
export interface ConnectionInput {
  name: string;
  /** A preset's id: it brings the profile, body type, proof, handshake, fetch and answer. */
  preset?: string | undefined;
  /** The vendor's secrets, by the names the preset (or the declarations) uses. */
  secrets: Record<string, string>;
  /** The upstream credential its submissions are forwarded with; may be left out when the company has one. */
  credentialId?: string | undefined;
  /** Sandbox mode only: where the preset's fetches go instead of the vendor's API (tests and demos). */
  vendorApiBase?: string | undefined;
  /** Without a preset: the declarations, and the published profile version the hook maps with. */
  settings?: unknown;
  profileVersionId?: string | undefined;
  /** A fixed hook token (`hk_…`), allowed in sandbox mode only: demo and test configs. */
  fixedToken?: string | undefined;
}

/**
 * Connects a vendor: a vendor key of its own (which carries the credential, the bound profile, the webhooks back and
 * the scope of idempotency), a profile (a preset's, published with the preset's documented samples as its golden
 * samples), and the connection with its hook URL, all in one transaction. The hook URL is shown once.
 */
export async function createConnection({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: ConnectionInput;
}) {
  const preset = input.preset === undefined ? undefined : ctx.presets.get(input.preset);
  if (input.preset !== undefined && !preset)
    throw badRequest(`preset: no preset "${input.preset}"`, { field: "preset" });
  if (input.vendorApiBase !== undefined && ctx.settings.mode !== "sandbox") {
    throw badRequest("vendorApiBase: accepted in sandbox mode only", { field: "vendorApiBase" });
  }
  if (input.vendorApiBase !== undefined && !/^https?:\/\/[^/?#]+/i.test(input.vendorApiBase)) {
    throw badRequest("vendorApiBase: must be an http(s) URL", { field: "vendorApiBase" });
  }
  const declared = preset ? preset.preset.secrets.map((s) => s.name) : ownSecretNames(input);
  checkSecrets(declared, input.secrets);
  const credentialId = await credentialFor(ctx, companyId, input.credentialId);
  const now = ctx.now().toISOString();
  const id = newId("con");
  const made = preset
    ? await presetProfile(ctx, companyId, preset, input.name, now)
    : await ownProfile(ctx, companyId, input);
  const key = vendorKeyRow(ctx, companyId, input.name, credentialId, made.kind, made.versionId, now);
  if (input.fixedToken !== undefined && (ctx.settings.mode !== "sandbox" || !isHookToken(input.fixedToken))) {
    throw badRequest("hookToken: a fixed hk_… token, in sandbox mode only", { field: "hookToken" });
  }
  const token = input.fixedToken ?? newHookToken();
  const row: ConnectionRow = {
    id,
    companyId,
    vendorKeyId: key.id,
    name: input.name,
    preset: preset?.id ?? null,
    settings: preset ? null : (connectionSettingsSchema.parse(input.settings) as Record<string, unknown>),
    profileKind: made.kind,
    sealedSecrets: sealSecrets(ctx.sealer, id, input.secrets),
    vendorApiBase: input.vendorApiBase ?? null,
    tokenDigest: digestHookToken(token),
    previousTokenDigest: null,
    previousValidUntil: null,
    proofFailures: 0,
    lastProofFailureAt: null,
    lastProofFailure: null,
    createdAt: now,
    revokedAt: null,
  };
  await ctx.transaction(async (tx) => {
    if (made.profile) await tx.profiles.insertProfile(made.profile);
    if (made.version) await tx.profiles.insertVersion(made.version);
    await tx.vendorKeys.insert(key);
    await tx.connections.insert(row);
  });
  return { ...publicConnection(ctx, row), hookUrl: hookUrl(ctx.settings.publicUrl, token) };
}

function ownSecretNames(input: ConnectionInput): string[] {
  const parsed = connectionSettingsSchema.safeParse(input.settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ["settings", ...(issue?.path ?? [])].join(".");
    throw badRequest(`${field}: ${issue?.message ?? "invalid"}`, { field });
  }
  return declaredSecrets(parsed.data);
}

/** The secret names declarations use: the proof's, the handshake's, the fetch's. */
export function declaredSecrets(declarations: HookDeclarations): string[] {
  const names = new Set(secretsNamedBy(declarations.proof));
  const handshake = declarations.handshake;
  if (handshake?.type === "echo" && handshake.token) names.add(handshake.token.secret);
  if (handshake?.type === "hmac-challenge") names.add(handshake.secret);
  const fetch = declarations.fetch;
  if (fetch) for (const { name } of fetchSecretNames(fetch)) names.add(name);
  return [...names];
}

/** Every declared secret given, nothing else (a misspelt name would otherwise be kept and never used). */
function checkSecrets(declared: readonly string[], given: Record<string, string>): void {
  for (const name of declared) {
    if (!given[name]) throw badRequest(`secrets.${name}: required`, { field: `secrets.${name}` });
  }
  for (const name of Object.keys(given)) {
    if (!declared.includes(name)) {
      throw badRequest(`secrets.${name}: not a secret this connection uses`, { field: `secrets.${name}` });
    }
  }
}

/** The credential named, or the company's only one. */
async function credentialFor(ctx: GatewayContext, companyId: string, credentialId: string | undefined) {
  if (credentialId !== undefined) return (await getCredentialRow(ctx, companyId, credentialId)).id;
  const credentials = await ctx.credentials.listOfCompany(companyId);
  const [only] = credentials;
  if (credentials.length !== 1 || !only) {
    throw badRequest(`credentialId: required (the company has ${credentials.length} upstream credentials)`, {
      field: "credentialId",
    });
  }
  return only.id;
}

interface MadeProfile {
  kind: "lead" | "appointment";
  versionId: string;
  profile?: ProfileRow;
  version?: ProfileVersionRow;
}

/** A preset's profile, as a profile of the company's own (editable, versioned, rolled back like any other). */
async function presetProfile(
  ctx: GatewayContext,
  companyId: string,
  preset: LoadedPreset,
  name: string,
  now: string,
): Promise<MadeProfile> {
  const kinds: readonly string[] = preset.preset.kinds;
  const kind = kinds.includes("appointment") ? "appointment" : "lead";
  const profileName = `${name} (${preset.id})`;
  if (await ctx.profiles.profileByName(companyId, profileName)) {
    throw conflict(`name: a profile named "${profileName}" already exists: choose another connection name`, {
      field: "name",
    });
  }
  const samples = await presetGoldenSamples(ctx.engine, preset);
  const versionId = newId("pv");
  const report = await runGoldenSamples(ctx.engine, { versionId, kind, expression: preset.expression, samples });
  // A preset's samples are checked by its own tests: failing here is the gateway's fault, not the owner's.
  if (!report.passed) throw new ApiError("internal", `preset ${preset.id}: its documented samples do not pass`);
  const profile: ProfileRow = {
    id: newId("prf"),
    companyId,
    name: profileName,
    kind,
    description: `${preset.preset.vendor}, from the preset ${preset.id}`,
    createdAt: now,
  };
  const version: ProfileVersionRow = {
    id: versionId,
    profileId: profile.id,
    companyId,
    version: 1,
    expression: preset.expression,
    samples,
    status: "published",
    samplesPassed: true,
    createdAt: now,
    publishedAt: now,
  };
  return { kind, versionId, profile, version };
}

/** A connection of the owner's own declarations maps with a published version of one of its profiles. */
async function ownProfile(ctx: GatewayContext, companyId: string, input: ConnectionInput): Promise<MadeProfile> {
  const versionId = input.profileVersionId;
  if (versionId === undefined)
    throw badRequest("profileVersionId: required without a preset", { field: "profileVersionId" });
  const found = await ctx.profiles.versionWithKind(versionId);
  if (!found || found.version.companyId !== companyId) throw notFound("profile version not found");
  if (found.kind === "outbound") {
    throw badRequest("profileVersionId: an outbound profile cannot map a vendor's requests", {
      field: "profileVersionId",
    });
  }
  await assertBindable(ctx, companyId, versionId, found.kind);
  return { kind: found.kind, versionId };
}

/**
 * The connection's own vendor key: bound to its credential and profile, its secret random and never shown — a hook
 * connection is reached by its hook URL, never by an x-api-key.
 */
function vendorKeyRow(
  ctx: GatewayContext,
  companyId: string,
  name: string,
  credentialId: string,
  kind: "lead" | "appointment",
  versionId: string,
  now: string,
): VendorKeyRow {
  return {
    id: newKeyId(ctx.settings.mode === "live" ? "live" : "test"),
    companyId,
    name: `hook: ${name}`,
    partnerType: kind === "lead" ? "lead_source" : "booking_vendor",
    scopes: kind === "lead" ? ["leads:write"] : ["leads:write", "appointments:write"],
    credentialId,
    leadProfileVersionId: kind === "lead" ? versionId : null,
    appointmentProfileVersionId: kind === "appointment" ? versionId : null,
    captureSince: null,
    responseMode: "async",
    secretDigest: digestSecret(newKeySecret()),
    previousSecretDigest: null,
    previousValidUntil: null,
    createdAt: now,
    revokedAt: null,
  };
}
