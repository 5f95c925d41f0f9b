import { badRequest, notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";

/** A key may map with a published version of its own company's profile of the right kind. */
export async function assertBindable(
  ctx: GatewayContext,
  companyId: string,
  versionId: string | null,
  kind: "lead" | "appointment",
): Promise<void> {
  if (versionId === null) return;
  const row = await ctx.profiles.versionWithKind(versionId);
  if (!row || row.version.companyId !== companyId) throw notFound("profile version not found");
  const field = `${kind}ProfileVersionId`;
  if (row.kind !== kind) throw badRequest(`${field}: a ${row.kind} profile cannot map ${kind}s`, { field });
  if (row.version.status !== "published") {
    throw badRequest(`${field}: only a published version can be bound`, { field });
  }
}
