import { notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { getVendorKeyRow } from "../keys/vendor-keys.js";
import type { CapturedPayloadRow } from "../storage/captures/index.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import { CAPTURE_KEEP } from "./capture-payload.js";

/** What the owner sees of a key's capture mode and its captured payloads (D-315, D-316). */
export function captureModeView(key: VendorKeyRow, connectionId: string | null) {
  return { vendorKeyId: key.id, connectionId, captureSince: key.captureSince, keep: CAPTURE_KEEP };
}

function captureView(row: CapturedPayloadRow) {
  return {
    captureId: row.id,
    kind: row.kind,
    connectionId: row.connectionId,
    bytes: row.bytes,
    createdAt: row.createdAt,
    payload: JSON.parse(row.payload) as unknown,
  };
}

/** The key a capture request names: a vendor key of the company, or the key a hook connection owns. */
async function targetOf(
  ctx: GatewayContext,
  companyId: string,
  target: { keyId: string } | { connectionId: string },
): Promise<{ key: VendorKeyRow; connectionId: string | null }> {
  if ("keyId" in target) {
    const key = await getVendorKeyRow(ctx, companyId, target.keyId);
    const connection = await ctx.connections.ofVendorKey(key.id);
    return { key, connectionId: connection?.id ?? null };
  }
  const connection = await ctx.connections.getOfCompany(target.connectionId, companyId);
  if (!connection) throw notFound();
  return { key: await getVendorKeyRow(ctx, companyId, connection.vendorKeyId), connectionId: connection.id };
}

/**
 * Puts a key or a hook connection in capture mode, or takes it out (D-315). Explicit only: a key without a profile
 * keeps taking canonical bodies. Turning it on again keeps its first time (what it captured since then stays listed).
 */
export async function setCaptureMode({
  ctx,
  companyId,
  target,
  on,
}: {
  ctx: GatewayContext;
  companyId: string;
  target: { keyId: string } | { connectionId: string };
  on: boolean;
}) {
  const { key, connectionId } = await targetOf(ctx, companyId, target);
  if (key.revokedAt !== null) throw notFound();
  const captureSince = on ? (key.captureSince ?? ctx.now().toISOString()) : null;
  if (captureSince !== key.captureSince) await ctx.vendorKeys.update(key.id, { captureSince });
  return captureModeView({ ...key, captureSince }, connectionId);
}

/** A key's or a connection's captured payloads, newest first, with its capture mode. */
export async function listCaptures({
  ctx,
  companyId,
  target,
}: {
  ctx: GatewayContext;
  companyId: string;
  target: { keyId: string } | { connectionId: string };
}) {
  const { key, connectionId } = await targetOf(ctx, companyId, target);
  const rows = await ctx.captures.listOfKey(key.id, companyId, CAPTURE_KEEP);
  return { ...captureModeView(key, connectionId), captures: rows.map(captureView) };
}

/** Drops a key's or a connection's captured payloads (the owner is done with them). */
export async function clearCaptures({
  ctx,
  companyId,
  target,
}: {
  ctx: GatewayContext;
  companyId: string;
  target: { keyId: string } | { connectionId: string };
}) {
  const { key } = await targetOf(ctx, companyId, target);
  return { cleared: await ctx.captures.clearOfKey(key.id, companyId) };
}
