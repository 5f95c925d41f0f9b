import type { GatewayContext } from "../context.js";
import type { ConnectionRow } from "../storage/connections/index.js";

/**
 * What the owner API shows of a connection: never its token (the hook URL is shown once, when made or rotated), never
 * its secrets (their names only), and what the owner watches: refused proofs.
 */
export function publicConnection(ctx: GatewayContext, row: ConnectionRow) {
  const preset = row.preset === null ? undefined : ctx.presets.get(row.preset);
  return {
    id: row.id,
    name: row.name,
    preset: row.preset,
    vendor: preset?.preset.vendor ?? null,
    profileKind: row.profileKind,
    vendorKeyId: row.vendorKeyId,
    status: row.revokedAt === null ? ("active" as const) : ("revoked" as const),
    previousHookUrlValidUntil: row.previousValidUntil,
    proofFailures: row.proofFailures,
    lastProofFailureAt: row.lastProofFailureAt,
    lastProofFailure: row.lastProofFailure,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}
