import { and, eq } from "drizzle-orm";
import { notFound } from "../../../../http/errors.js";
import { isoAt } from "../../../clock.js";
import type { SandboxCtx } from "../../../context.js";
import { leads, projects, type SalesPipelineRow, salesPipelines } from "../../../db/schema/index.js";
import { recordEvent } from "../../../events/record-event.js";
import { salesFacts } from "../../../events/sales-facts.js";
import { applyChange, type PipelineChange, type PipelineEvent } from "./changes.js";

export interface ChangedPipeline {
  eventId: string;
  event: PipelineEvent;
  leadId: string;
  version: number;
  stage: string;
  /** Every event the change recorded, in order: its own, project.stage_changed, journal.entry_posted. */
  events: Array<{ eventId: string; event: string }>;
}

/**
 * The sandbox's sales pipeline (§6.7 sales and project events), driven by the admin API: one change of a lead's
 * pipeline, its §6.7 event, a project.stage_changed when the stage moved ("any pipeline stage change") and a
 * journal.entry_posted for a deposit, refund or invoice (§6.7 financial journal) — all in one transaction. Each event
 * records the platform's full facts; what a partner receives is its type's view (events/audience.ts). resource is
 * `{type: "lead", id: leadId, version}`, the version counting the pipeline's changes.
 */
export function changePipeline({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { leadId: string; change: PipelineChange };
}): ChangedPipeline {
  const now = isoAt(ctx.clock);
  const { change } = input;
  return ctx.db.transaction((tx) => {
    const lead = tx.select().from(leads).where(eq(leads.id, input.leadId)).get();
    if (!lead) throw notFound("lead not found");
    if (change.projectId !== undefined) {
      const project = tx
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.id, change.projectId), eq(projects.companyId, lead.companyId)))
        .get();
      if (!project) throw notFound("project not found");
    }
    const current: SalesPipelineRow = tx
      .select()
      .from(salesPipelines)
      .where(eq(salesPipelines.leadId, lead.id))
      .get() ?? {
      leadId: lead.id,
      companyId: lead.companyId,
      projectId: null,
      stage: "LEAD",
      version: 0,
      quote: null,
      deposit: null,
      invoices: [],
      rebate: null,
      completedAt: null,
      updatedAt: now,
    };
    const applied = applyChange(current, change, now);
    const { next } = applied;
    tx.insert(salesPipelines)
      .values(next)
      .onConflictDoUpdate({ target: salesPipelines.leadId, set: { ...next } })
      .run();

    const resource = { type: "lead", id: lead.id, version: next.version };
    const facts = salesFacts(next, lead, {
      previousStage: current.stage,
      invoice: applied.invoice,
      previousRebateStatus: applied.previousRebateStatus,
    });
    const data = { ...facts } as unknown as Record<string, unknown>;
    const events: ChangedPipeline["events"] = [];
    const record = (event: string, eventData: Record<string, unknown>, res = resource) =>
      events.push({
        eventId: recordEvent(tx, ctx.clock, { companyId: lead.companyId, event, resource: res, data: eventData }),
        event,
      });

    record(change.event, data);
    if (change.event !== "project.stage_changed" && next.stage !== current.stage) record("project.stage_changed", data);
    if (applied.journal) {
      const entry = { ...applied.journal, leadId: lead.id, customer: { name: lead.fullName, email: lead.email } };
      record("journal.entry_posted", entry as unknown as Record<string, unknown>, {
        type: "journalEntry",
        id: entry.entryId,
        version: 1,
      });
    }
    const [own] = events;
    return {
      eventId: own?.eventId ?? "",
      event: change.event,
      leadId: lead.id,
      version: next.version,
      stage: next.stage,
      events,
    };
  });
}
