import { digestSecret, formatApiKey, newKeyId, newKeySecret } from "../../contract/api-key.js";
import { badRequest, notFound } from "../../http/errors.js";
import { keyPrefix } from "../../log.js";
import type { GatewayContext } from "../context.js";
import { getCredentialRow } from "../credentials/upstream-credentials.js";
import { assertBindable } from "../profiles-admin/bind.js";
import type { PartnerType, VendorKeyRow, VendorScope } from "../storage/vendor-keys/index.js";

/** What the owner API shows of a key: its id and first 14 characters, never the secret or its digest. */
export function publicVendorKey(row: VendorKeyRow) {
  return {
    id: row.id,
    keyPrefix: keyPrefix(row.id),
    name: row.name,
    partnerType: row.partnerType,
    scopes: row.scopes,
    credentialId: row.credentialId,
    leadProfileVersionId: row.leadProfileVersionId,
    appointmentProfileVersionId: row.appointmentProfileVersionId,
    responseMode: row.responseMode,
    captureSince: row.captureSince,
    previousValidUntil: row.previousValidUntil,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

export interface VendorKeyInput {
  name: string;
  partnerType: PartnerType;
  scopes: VendorScope[];
  credentialId: string;
  leadProfileVersionId?: string | null;
  appointmentProfileVersionId?: string | null;
  responseMode?: "async" | "sync";
  /** A fixed key (`<keyId>.<secret>`), allowed in sandbox mode only: demo and test configs. */
  fixedKey?: { keyId: string; secret: string };
}

/** Issues a vendor key bound to one upstream credential; the full key is returned once. */
export async function createVendorKey({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: VendorKeyInput;
}) {
  await getCredentialRow(ctx, companyId, input.credentialId);
  if (input.scopes.length === 0) throw badRequest("scopes: at least one scope is required", { field: "scopes" });
  await assertBindable(ctx, companyId, input.leadProfileVersionId ?? null, "lead");
  await assertBindable(ctx, companyId, input.appointmentProfileVersionId ?? null, "appointment");
  const environment = ctx.settings.mode === "live" ? "live" : "test";
  const keyId = input.fixedKey?.keyId ?? newKeyId(environment);
  const secret = input.fixedKey?.secret ?? newKeySecret();
  const row: VendorKeyRow = {
    id: keyId,
    companyId,
    name: input.name,
    partnerType: input.partnerType,
    scopes: input.scopes,
    credentialId: input.credentialId,
    leadProfileVersionId: input.leadProfileVersionId ?? null,
    appointmentProfileVersionId: input.appointmentProfileVersionId ?? null,
    captureSince: null,
    responseMode: input.responseMode ?? "async",
    secretDigest: digestSecret(secret),
    previousSecretDigest: null,
    previousValidUntil: null,
    createdAt: ctx.now().toISOString(),
    revokedAt: null,
  };
  await ctx.vendorKeys.insert(row);
  return { ...publicVendorKey(row), key: formatApiKey(keyId, secret) };
}

export async function getVendorKeyRow(ctx: GatewayContext, companyId: string, keyId: string): Promise<VendorKeyRow> {
  const row = await ctx.vendorKeys.getOfCompany(keyId, companyId);
  if (!row) throw notFound();
  return row;
}

export async function listVendorKeys({ ctx, companyId }: { ctx: GatewayContext; companyId: string }) {
  return (await ctx.vendorKeys.listOfCompany(companyId)).map(publicVendorKey);
}

/** Issues a new secret; the old one keeps working until `overlapSeconds` have passed (default one day). */
export async function rotateVendorKey({
  ctx,
  companyId,
  keyId,
  overlapSeconds = 86_400,
}: {
  ctx: GatewayContext;
  companyId: string;
  keyId: string;
  overlapSeconds?: number;
}) {
  const row = await getVendorKeyRow(ctx, companyId, keyId);
  if (row.revokedAt) throw notFound();
  const secret = newKeySecret();
  const update = {
    secretDigest: digestSecret(secret),
    previousSecretDigest: overlapSeconds > 0 ? row.secretDigest : null,
    previousValidUntil: overlapSeconds > 0 ? new Date(ctx.now().getTime() + overlapSeconds * 1000).toISOString() : null,
  };
  await ctx.vendorKeys.update(row.id, update);
  return { ...publicVendorKey({ ...row, ...update }), key: formatApiKey(row.id, secret) };
}

export async function revokeVendorKey({
  ctx,
  companyId,
  keyId,
}: {
  ctx: GatewayContext;
  companyId: string;
  keyId: string;
}) {
  const row = await getVendorKeyRow(ctx, companyId, keyId);
  const revokedAt = row.revokedAt ?? ctx.now().toISOString();
  await ctx.vendorKeys.update(row.id, { revokedAt });
  return publicVendorKey({ ...row, revokedAt });
}

export interface VendorKeyUpdate {
  name?: string;
  credentialId?: string;
  leadProfileVersionId?: string | null;
  appointmentProfileVersionId?: string | null;
  responseMode?: "async" | "sync";
}

/** Changes a key's bindings: its credential, the profile versions it maps with, its response mode. */
export async function updateVendorKey({
  ctx,
  companyId,
  keyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  keyId: string;
  input: VendorKeyUpdate;
}) {
  const row = await getVendorKeyRow(ctx, companyId, keyId);
  if (input.credentialId) await getCredentialRow(ctx, companyId, input.credentialId);
  if (input.leadProfileVersionId !== undefined)
    await assertBindable(ctx, companyId, input.leadProfileVersionId, "lead");
  if (input.appointmentProfileVersionId !== undefined) {
    await assertBindable(ctx, companyId, input.appointmentProfileVersionId, "appointment");
  }
  const update = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<VendorKeyRow>;
  if (Object.keys(update).length > 0) await ctx.vendorKeys.update(row.id, update);
  return publicVendorKey({ ...row, ...update });
}
