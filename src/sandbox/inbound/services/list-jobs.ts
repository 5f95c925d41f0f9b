import { and, desc, eq } from "drizzle-orm";
import type { CallerCtx } from "../../context.js";
import { projects } from "../../db/schema/index.js";
import { type ContractorJob, toContractorJob } from "./contractor-job.js";

/** GET /api/inbound/jobs (§4.2): the sold projects assigned to the key's contractor record, newest change first. */
export function listJobs({ ctx, input }: { ctx: CallerCtx; input: { take: number } }): ContractorJob[] {
  const { contractorId, companyId } = ctx.caller;
  if (!contractorId) return [];
  return ctx.db
    .select()
    .from(projects)
    .where(and(eq(projects.contractorId, contractorId), eq(projects.companyId, companyId)))
    .orderBy(desc(projects.lastUpdated), desc(projects.id))
    .limit(input.take)
    .all()
    .map(toContractorJob);
}
