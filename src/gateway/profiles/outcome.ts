import type { ZodType } from "zod";
import { appointmentSchema } from "../../contract/appointment.js";
import { leadSchema } from "../../contract/lead.js";
import { splitBody } from "./extras.js";
import { isRecordsOutput, recordsOutcome } from "./records.js";
import type { MappingOutcome, ProfileKind, Untimed } from "./types.js";

/** §2.7 and §2.8 bodies; an outbound profile maps the platform's events to a vendor's shape, any object will do. */
const SCHEMAS: Readonly<Record<ProfileKind, ZodType | undefined>> = {
  lead: leadSchema,
  appointment: appointmentSchema,
  outbound: undefined,
};

/**
 * What intake acts on, from a profile's plain-JSON output: a JSON object, which the canonical schema of the profile's
 * kind then validates; or, for a lead or appointment profile, a record or a list of records, each validated by its own
 * kind's schema (records.ts, docs/decisions.md D-300). A body's `extras` is kept apart (D-320), and the keys the
 * canonical body does not have are named, not silently dropped (D-321). A failure names the canonical field and, when the profile makes
 * it plain, the vendor's field it came from. Both evaluation paths (the evaluators and inline.ts) end here, so they
 * cannot differ in what they accept.
 */
export function mappedOutcome(
  kind: ProfileKind,
  output: unknown,
  sourcePathOf: (field: string) => string | undefined,
): Untimed<MappingOutcome> {
  if (kind !== "outbound" && isRecordsOutput(output)) return recordsOutcome(output, sourcePathOf);
  if (typeof output !== "object" || output === null || Array.isArray(output)) {
    const got = output === undefined ? "nothing" : Array.isArray(output) ? "an array" : `a ${typeof output}`;
    return { ok: false, kind: "mapping", message: `the profile must produce a JSON object, it produced ${got}` };
  }
  const schema = SCHEMAS[kind];
  if (!schema || kind === "outbound") return { ok: true, body: output };
  // D-320, D-321: the vendor's other details kept apart; the keys the canonical body would drop named.
  const split = splitBody(kind, output as Record<string, unknown>);
  if (split.invalidExtras !== undefined) {
    return { ok: false, kind: "validation", field: "extras", message: split.invalidExtras, output };
  }
  const parsed = schema.safeParse(split.body);
  if (parsed.success) {
    return {
      ok: true,
      body: parsed.data,
      ...(split.extras ? { extras: split.extras } : {}),
      ...(split.dropped.length > 0 ? { dropped: split.dropped } : {}),
    };
  }
  const issue = parsed.error.issues[0];
  const field = (issue?.path ?? []).map(String).join(".");
  const message = issue?.message ?? "invalid";
  const sourcePath = sourcePathOf(field);
  return sourcePath === undefined
    ? { ok: false, kind: "validation", field, message, output }
    : { ok: false, kind: "validation", field, message, sourcePath, output };
}

/**
 * A JSONata lambda or function reference is an object holding its closure (and the environment, which is circular);
 * like a JS function it has no JSON form, so it is left out, as JSON.stringify leaves out functions.
 */
export function dropFunctions(_key: string, value: unknown): unknown {
  if (typeof value === "function") return undefined;
  if (typeof value === "object" && value !== null && ("_jsonata_lambda" in value || "_jsonata_function" in value)) {
    return undefined;
  }
  return value;
}
