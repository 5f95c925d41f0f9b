import { and, eq } from "drizzle-orm";
import { notFound } from "../../../http/errors.js";
import { partners } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { keysOf, type PartnerView, partnerView } from "./partner-view.js";

/** §1 distributor: the company opts in (or out) of telling it about completed projects. The type never changes. */
export function setPartnerOptIn({
  ctx,
  input,
}: {
  ctx: ConsoleCtx;
  input: { id: string; completedProjectsOptIn: boolean };
}): PartnerView {
  const row = ctx.db
    .select()
    .from(partners)
    .where(and(eq(partners.id, input.id), eq(partners.companyId, ctx.owner.companyId)))
    .get();
  if (!row) throw notFound("partner not found");
  ctx.db
    .update(partners)
    .set({ completedProjectsOptIn: input.completedProjectsOptIn })
    .where(eq(partners.id, row.id))
    .run();
  return partnerView({ ...row, completedProjectsOptIn: input.completedProjectsOptIn }, keysOf(ctx, row.id));
}
