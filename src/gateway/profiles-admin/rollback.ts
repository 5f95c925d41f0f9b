import { badRequest } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { getProfileRow, getVersionRow } from "./profiles.js";

/**
 * Rolls a profile back (or forward) to one of its published versions: every key bound to any version of the profile
 * is re-bound to it. New submissions map with it at once; submissions already accepted keep the version that mapped
 * them.
 */
export async function rollbackProfile({
  ctx,
  companyId,
  profileId,
  versionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  profileId: string;
  versionId: string;
}) {
  const profile = await getProfileRow(ctx, companyId, profileId);
  const target = await getVersionRow(ctx, companyId, versionId);
  if (target.profileId !== profile.id)
    throw badRequest("versionId: not a version of this profile", { field: "versionId" });
  if (target.status !== "published") {
    throw badRequest("versionId: only a published version can be bound", { field: "versionId" });
  }
  if (profile.kind === "outbound") return { profileId, versionId, reboundKeys: [] as string[] };
  const versionIds = await ctx.profiles.versionIdsOf(profileId);
  const keys = await ctx.vendorKeys.boundTo(profile.kind, versionIds);
  await ctx.vendorKeys.rebind(profile.kind, keys, versionId);
  return { profileId, versionId, reboundKeys: keys };
}
