import { and, eq } from "drizzle-orm";
import { submissions } from "../../db/schema/index.js";
import type { GatewayContext } from "../context.js";
import type { SubmissionRow } from "../intake/submission-view.js";

/**
 * The lead submission an appointment names by its id (`leadId: "sub_…"`, appointment chaining, docs/forwarding.md):
 * only a lead submission of the appointment's own vendor key, and so of its own company, is one. Looked up this way
 * wherever a reference is followed — at intake, on a redrive's re-map, when forwarding holds or sends the appointment
 * — never by the id alone, so one tenant's appointment cannot wait on, fail with, or be sent with another's lead.
 */
export function leadOf(
  ctx: Pick<GatewayContext, "db">,
  appointment: Pick<SubmissionRow, "companyId" | "vendorKeyId">,
  leadSubmissionId: string,
): SubmissionRow | undefined {
  return ctx.db
    .select()
    .from(submissions)
    .where(
      and(
        eq(submissions.id, leadSubmissionId),
        eq(submissions.companyId, appointment.companyId),
        eq(submissions.vendorKeyId, appointment.vendorKeyId),
        eq(submissions.kind, "lead"),
      ),
    )
    .get();
}
