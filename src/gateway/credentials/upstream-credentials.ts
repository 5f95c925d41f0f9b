import { badRequest, notFound } from "../../http/errors.js";
import { newId } from "../../ids.js";
import { keyPrefix } from "../../log.js";
import type { GatewayContext } from "../context.js";
import type { UpstreamCredentialRow } from "../storage/credentials/index.js";

/** What the owner API shows of a credential: never the value, only its first 14 characters (§5.9). */
export function publicCredential(row: UpstreamCredentialRow) {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    version: row.version,
    status: row.status,
    pausedReason: row.pausedReason,
    createdAt: row.createdAt,
    rotatedAt: row.rotatedAt,
  };
}

function checkValue(ctx: GatewayContext, value: string): void {
  // §5.2: the platform's test keys start with svc_test_, live keys with svc_live_; a mismatch would only fail later.
  const expected = ctx.settings.mode === "live" ? "svc_live_" : "svc_test_";
  if (!value.startsWith(expected) || !value.includes(".")) {
    throw badRequest(`value: must be a ${expected}… general key of the platform (<keyId>.<secret>)`, {
      field: "value",
    });
  }
}

/** Stores a new upstream credential (one of the company's general keys), sealed with the master key. */
export async function createUpstreamCredential({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { name: string; value: string; id?: string };
}) {
  checkValue(ctx, input.value);
  const id = input.id ?? newId("cred");
  const row = {
    id,
    companyId,
    name: input.name,
    keyPrefix: keyPrefix(input.value),
    sealed: ctx.sealer.seal(input.value, id),
    version: 1,
    status: "active" as const,
    createdAt: ctx.now().toISOString(),
  };
  await ctx.credentials.insert(row);
  return publicCredential({ ...row, pausedReason: null, rotatedAt: null });
}

/** Replaces a credential's value; a paused credential becomes active again (forwarding resumes its backlog). */
export async function rotateUpstreamCredential({
  ctx,
  companyId,
  credentialId,
  value,
}: {
  ctx: GatewayContext;
  companyId: string;
  credentialId: string;
  value: string;
}) {
  checkValue(ctx, value);
  const row = await getCredentialRow(ctx, companyId, credentialId);
  const updated = {
    keyPrefix: keyPrefix(value),
    sealed: ctx.sealer.seal(value, row.id),
    version: row.version + 1,
    status: "active" as const,
    pausedReason: null,
    rotatedAt: ctx.now().toISOString(),
  };
  await ctx.credentials.update(row.id, updated);
  await ctx.running.forwarding?.credentialRotated(row.id);
  return publicCredential({ ...row, ...updated });
}

export async function getCredentialRow(ctx: GatewayContext, companyId: string, credentialId: string) {
  const row = await ctx.credentials.getOfCompany(credentialId, companyId);
  if (!row) throw notFound();
  return row;
}

export async function listUpstreamCredentials({ ctx, companyId }: { ctx: GatewayContext; companyId: string }) {
  return (await ctx.credentials.listOfCompany(companyId)).map(publicCredential);
}

/** The credential's value, for the forwarding client only. */
export function openUpstreamCredential(ctx: GatewayContext, row: UpstreamCredentialRow): string {
  return ctx.sealer.open(row.sealed, row.id);
}
