import { asc, eq } from "drizzle-orm";
import { notFound } from "../../../http/errors.js";
import type { SandboxCtx } from "../../context.js";
import { type LeadRow, type LeadSubmissionRow, leadSubmissions, leads } from "../../db/schema/index.js";

/** Admin: a lead with its submission history (§3.3), for tests and demos — partners have no read access (§1). */
export function readLead({ ctx, input }: { ctx: SandboxCtx; input: { leadId: string } }): {
  lead: LeadRow;
  history: LeadSubmissionRow[];
} {
  const lead = ctx.db.select().from(leads).where(eq(leads.id, input.leadId)).get();
  if (!lead) throw notFound("lead not found");
  const history = ctx.db
    .select()
    .from(leadSubmissions)
    .where(eq(leadSubmissions.leadId, lead.id))
    .orderBy(asc(leadSubmissions.receivedAt), asc(leadSubmissions.id))
    .all();
  return { lead, history };
}
