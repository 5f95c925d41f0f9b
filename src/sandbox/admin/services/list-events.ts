import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import { API_VERSION, SCHEMA_VERSION } from "../../../contract/api-version.js";
import type { SandboxCtx } from "../../context.js";
import { events } from "../../db/schema/index.js";

/** An outbox row in the §6.1 envelope shape, plus its sequence and company for consumers of the outbox. */
export interface EventEnvelope {
  sequence: number;
  companyId: string;
  id: string;
  event: string;
  apiVersion: string;
  schemaVersion: number;
  occurredAt: string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
}

/** Admin: events in order, optionally of one company and after a sequence (the webhooks issue resumes from it). */
export function listEvents({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { afterSequence?: number; companyId?: string; limit: number };
}): EventEnvelope[] {
  const filters: SQL[] = [];
  if (input.afterSequence !== undefined) filters.push(gt(events.sequence, input.afterSequence));
  if (input.companyId) filters.push(eq(events.companyId, input.companyId));
  return ctx.db
    .select()
    .from(events)
    .where(and(...filters))
    .orderBy(asc(events.sequence))
    .limit(input.limit)
    .all()
    .map((row) => ({
      sequence: row.sequence,
      companyId: row.companyId,
      id: row.id,
      event: row.event,
      apiVersion: API_VERSION,
      schemaVersion: SCHEMA_VERSION,
      occurredAt: row.occurredAt,
      resource: { type: row.resourceType, id: row.resourceId, version: row.resourceVersion },
      data: row.data,
    }));
}
