import { z } from "zod";
import { appointmentSchema } from "../../contract/appointment.js";
import { chars } from "../../contract/chars.js";
import { leadSchema } from "../../contract/lead.js";
import { splitBody } from "./extras.js";
import {
  type MappedRecord,
  type MappingOutcome,
  RECORD_ACTIONS,
  RECORD_KINDS,
  type RecordKind,
  type Untimed,
} from "./types.js";

/**
 * The record a profile may produce besides a canonical body (docs/decisions.md, D-300). Strict: a misspelt `action`
 * would otherwise be dropped and a cancellation stored as a creation.
 */
const envelopeSchema = z.strictObject({
  kind: z.enum(RECORD_KINDS as [RecordKind, ...RecordKind[]], { message: "must be lead or appointment" }),
  id: chars(1, 200).optional(),
  body: z.record(z.string(), z.unknown(), { message: "must be an object (the canonical body)" }),
  test: z.boolean({ message: "must be true or false" }).optional(),
  action: z
    .enum(RECORD_ACTIONS as ["create", "reschedule", "cancel"], { message: "must be create, reschedule or cancel" })
    .optional(),
});

const BODY_SCHEMAS = { lead: leadSchema, appointment: appointmentSchema } as const;

/**
 * A placeholder the canonical schema accepts where a chained appointment's `leadId` will be (D-301): the appointment's
 * other fields are validated exactly as intake would, and the placeholder is removed again.
 */
const CHAINED_LEAD = "chained";

type Invalid = Extract<Untimed<MappingOutcome>, { kind: "validation" }>;

/**
 * Whether a profile's output is records rather than one canonical body: a list, or an object with both a `kind` and a
 * `body` (no canonical body has either field, so no output that was valid before reads differently now).
 */
export function isRecordsOutput(output: unknown): boolean {
  if (Array.isArray(output)) return true;
  if (typeof output !== "object" || output === null) return false;
  const { kind, body } = output as { kind?: unknown; body?: unknown };
  return kind !== undefined && body !== undefined;
}

/**
 * Validates a record or a list of records, in order: each record's envelope, then its body against its own kind's
 * canonical schema. An appointment whose body has no `leadId` is chained to the lead record before it (D-301). The
 * first failure is reported naming the record (`records[1].startsAt`); `sourcePathOf` is asked for the vendor's field
 * behind a record's field, by its path in the output (`[1].body.startsAt`, then `body.startsAt`: source-paths.ts).
 */
export function recordsOutcome(
  output: unknown,
  sourcePathOf: (path: string) => string | undefined,
): Untimed<MappingOutcome> {
  // An empty list is a notification that carries no record (a message, a deletion): valid, nothing to store.
  const list = Array.isArray(output) ? output : [output];
  const records: MappedRecord[] = [];
  const dropped: string[] = [];
  let leadSeen = false;
  for (const [index, item] of list.entries()) {
    // `path`: where the field is in the profile's output, relative to the record, to find the vendor's field behind it.
    const invalid = (field: string, message: string, path: string): Invalid => {
      const candidates = Array.isArray(output) ? [`[${index}]${path ? `.${path}` : ""}`, path] : [path];
      const sourcePath = candidates.map((candidate) => (candidate ? sourcePathOf(candidate) : undefined)).find(Boolean);
      const named = `records[${index}]${field ? `.${field}` : ""}`;
      return sourcePath === undefined
        ? { ok: false, kind: "validation", field: named, message, output }
        : { ok: false, kind: "validation", field: named, message, sourcePath, output };
    };
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return invalid("", "must be a record: an object with kind and body", "");
    }
    const envelope = envelopeSchema.safeParse(item);
    if (!envelope.success) {
      const issue = envelope.error.issues[0];
      const unknownKey = issue?.code === "unrecognized_keys" ? issue.keys[0] : undefined;
      if (unknownKey !== undefined) return invalid(unknownKey, "is not a field of a record", unknownKey);
      const field = (issue?.path ?? []).map(String).join(".");
      return invalid(field, issue?.message ?? "invalid", field);
    }
    const { kind, id, body, test, action } = envelope.data;
    // D-301: chained to the lead before it. Only a creation must have one: a reschedule or a cancellation is stored
    // and shown, never sent (the Inbound API cannot express it), and names the vendor's booking by its id.
    const chained = kind === "appointment" && body.leadId === undefined;
    if (chained && !leadSeen && (action ?? "create") === "create") {
      const message = "is required: no lead record comes before this appointment to chain it to";
      return invalid("leadId", message, "body.leadId");
    }
    // D-320, D-321: the record's extras kept apart, the keys its canonical body would drop named.
    const split = splitBody(kind, body);
    if (split.invalidExtras !== undefined) return invalid("extras", split.invalidExtras, "body.extras");
    const parsed = BODY_SCHEMAS[kind].safeParse(chained ? { ...split.body, leadId: CHAINED_LEAD } : split.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = (issue?.path ?? []).map(String).join(".");
      return invalid(field || "body", issue?.message ?? "invalid", field ? `body.${field}` : "body");
    }
    const validated: Record<string, unknown> = { ...parsed.data };
    if (chained) delete validated.leadId;
    // Only the fields the profile set, in one order: both evaluation paths then give records equal as JSON text.
    const record: MappedRecord = id === undefined ? { kind, body: validated } : { kind, id, body: validated };
    if (test !== undefined) record.test = test;
    if (action !== undefined) record.action = action;
    if (split.extras) record.extras = split.extras;
    for (const key of split.dropped) dropped.push(`records[${index}].body.${key}`);
    records.push(record);
    if (kind === "lead") leadSeen = true;
  }
  return dropped.length > 0 ? { ok: true, records, dropped } : { ok: true, records };
}
