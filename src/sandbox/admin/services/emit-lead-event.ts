import { and, count, eq } from "drizzle-orm";
import { notFound } from "../../../http/errors.js";
import type { SandboxCtx } from "../../context.js";
import { events, leads, projects } from "../../db/schema/index.js";
import { recordEvent } from "../../events/record-event.js";

/** Sales events the sandbox can produce for a lead (§6.7), each with the pipeline stage it reports. */
export const LEAD_EVENT_STAGES = {
  "quote.sent": "QUOTE_SENT",
  "quote.accepted": "QUOTE_ACCEPTED",
  "project.completed": "COMPLETED",
} as const;
export type LeadEventName = keyof typeof LEAD_EVENT_STAGES;

export interface EmittedLeadEvent {
  eventId: string;
  event: LeadEventName;
  leadId: string;
  version: number;
}

/**
 * Admin stand-in for the sales pipeline, which the sandbox does not model: records `quote.sent`, `quote.accepted` or
 * `project.completed` for a lead, made in the platform (so every interested subscriber hears it). Data is what a lead
 * source may see (§1): the lead id and the stage, never a price; `projectId` when one is named. resource is
 * `{type: "lead", id: leadId, version}`, the version counting the lead's sales events.
 */
export function emitLeadEvent({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { leadId: string; event: LeadEventName; projectId?: string };
}): EmittedLeadEvent {
  return ctx.db.transaction((tx) => {
    const lead = tx.select().from(leads).where(eq(leads.id, input.leadId)).get();
    if (!lead) throw notFound("lead not found");
    if (input.projectId !== undefined) {
      const project = tx
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.id, input.projectId), eq(projects.companyId, lead.companyId)))
        .get();
      if (!project) throw notFound("project not found");
    }
    const [prior] = tx
      .select({ n: count() })
      .from(events)
      .where(and(eq(events.resourceType, "lead"), eq(events.resourceId, lead.id)))
      .all();
    const version = (prior?.n ?? 0) + 1;
    const eventId = recordEvent(tx, ctx.clock, {
      companyId: lead.companyId,
      event: input.event,
      resource: { type: "lead", id: lead.id, version },
      data: {
        leadId: lead.id,
        stage: LEAD_EVENT_STAGES[input.event],
        ...(input.projectId !== undefined ? { projectId: input.projectId } : {}),
      },
    });
    return { eventId, event: input.event, leadId: lead.id, version };
  });
}
