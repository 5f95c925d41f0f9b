import { conflict } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { getCredentialRow, publicCredential } from "./upstream-credentials.js";

/**
 * Resumes a paused credential without a new value (D-236): the owner says the platform accepts the key again (say it
 * re-enabled it). The pause is cleared and what waited on the credential is queued again, as a rotation does; the
 * version stays, so a refusal of this same key pauses it again with the new reason.
 */
export async function resumeUpstreamCredential({
  ctx,
  companyId,
  credentialId,
}: {
  ctx: GatewayContext;
  companyId: string;
  credentialId: string;
}) {
  // Awaited: the storage layer's verbs may answer with promises.
  const row = await getCredentialRow(ctx, companyId, credentialId);
  if (row.status === "active") throw conflict("the credential is not paused");
  const change = { status: "active" as const, pausedReason: null };
  await ctx.credentials.update(row.id, change);
  await ctx.running.forwarding?.credentialRotated(row.id);
  return publicCredential({ ...row, ...change });
}
