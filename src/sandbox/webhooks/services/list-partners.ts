import { asc, eq } from "drizzle-orm";
import { partners } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { keysOf, type PartnerView, partnerView } from "./partner-view.js";

/** `GET /partner-api/partners`: the owner's partners with their keys. */
export function listPartners({ ctx }: { ctx: ConsoleCtx }): PartnerView[] {
  const rows = ctx.db
    .select()
    .from(partners)
    .where(eq(partners.companyId, ctx.owner.companyId))
    .orderBy(asc(partners.id))
    .all();
  return rows.map((row) => partnerView(row, keysOf(ctx, row.id)));
}
