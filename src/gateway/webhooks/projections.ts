/**
 * What a vendor may see of an event (§1 "limits of its view"). Each projection copies named fields only, so a field
 * the platform adds later (§9.2) never reaches a vendor by accident.
 */

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

export interface VisitContact {
  name?: string | undefined;
  phone?: string | undefined;
  address?: string | undefined;
}

/** Booking vendor: the visit's times, its ids, and name, address and phone for it — no quote or project data. */
export function appointmentView(input: {
  change: string;
  appointmentId: string;
  leadId?: string | undefined;
  startsAt?: string | undefined;
  endsAt?: string | undefined;
  customer?: VisitContact | undefined;
}): Record<string, unknown> {
  const customer = input.customer
    ? Object.fromEntries(Object.entries(input.customer).filter(([, v]) => v !== undefined))
    : undefined;
  return {
    change: input.change,
    appointmentId: input.appointmentId,
    ...(input.leadId ? { leadId: input.leadId } : {}),
    ...(input.startsAt ? { startsAt: input.startsAt } : {}),
    ...(input.endsAt ? { endsAt: input.endsAt } : {}),
    ...(customer && Object.keys(customer).length > 0 ? { customer } : {}),
  };
}

/** The platform's appointment.booked data, narrowed to the booking vendor's view. */
export function appointmentViewOfPlatform(appointmentId: string, data: Record<string, unknown>) {
  const customer = typeof data.customer === "object" && data.customer !== null ? data.customer : {};
  const c = customer as Record<string, unknown>;
  return appointmentView({
    change: text(data.change) ?? "changed",
    appointmentId,
    leadId: text(data.leadId),
    startsAt: text(data.startsAt),
    endsAt: text(data.endsAt),
    customer: { name: text(c.name), phone: text(c.phone), address: text(c.address) },
  });
}

/** The visit's contact from a forwarded lead's canonical body (§2.7 fields). */
export function contactOfLead(body: Record<string, unknown> | null | undefined): VisitContact | undefined {
  if (!body) return undefined;
  return { name: text(body.fullName), phone: text(body.phone), address: text(body.address) };
}

/** Lead source: lead id and stage, never price (§1). */
export function leadStageView(leadId: string, event: string): Record<string, unknown> {
  return { leadId, stage: event.replace(".", "_") };
}

/** A vendor's own submission outcome: lead id and created/merged status only (§1) — no project of a merge. */
export function submissionOutcomeView(input: {
  submissionId: string;
  kind: string;
  outcome: "forwarded" | "failed";
  result: Record<string, unknown> | null;
  upstreamStatus: number | null;
  error: string | null;
}): Record<string, unknown> {
  const base = { submissionId: input.submissionId, kind: input.kind };
  if (input.outcome === "failed") {
    return {
      ...base,
      status: "failed",
      ...(input.upstreamStatus !== null ? { upstreamStatus: input.upstreamStatus } : {}),
      ...(input.error ? { error: input.error.slice(0, 500) } : {}),
    };
  }
  const result = input.result ?? {};
  if (input.kind === "appointment") {
    return {
      ...base,
      status: "booked",
      ...(text(result.appointmentId) ? { appointmentId: result.appointmentId } : {}),
    };
  }
  const status = result.status === "merged" ? "merged" : "created";
  return { ...base, status, ...(text(result.leadId) ? { leadId: result.leadId } : {}) };
}

/** What carries a person in an event's data, the platform's (§6.1 "not shown") and the gateway's views above. */
const PERSONAL_FIELDS: ReadonlySet<string> = new Set([
  "customer",
  "contact",
  "notes",
  "fullName",
  "name",
  "email",
  "phone",
  "address",
]);

/** An event's data without the person in it (an erasure): ids, times, stages and changes stay. */
export function withoutPersonalData(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([field]) => !PERSONAL_FIELDS.has(field)));
}
