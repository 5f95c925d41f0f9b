import { appointmentSchema } from "../../contract/appointment.js";
import { leadSchema } from "../../contract/lead.js";

/**
 * The key of a profile's output that carries the vendor's other details (D-320): its service, its questions and
 * answers, its own ids, a consent certificate's URL. Kept with the submission and shown to the owner, never sent
 * upstream: the canonical body has no such field (§2.7, §2.8).
 */
export const EXTRAS_KEY = "extras";

/** Past this size as JSON, `extras` is refused: it is kept in every submission row (D-320). */
export const EXTRAS_MAX_BYTES = 16_384;

/** The fields of each canonical body (§2.7, §2.8): a profile's key outside them is dropped (D-321). */
const CANONICAL_FIELDS = {
  lead: new Set(Object.keys(leadSchema.shape)),
  appointment: new Set(Object.keys(appointmentSchema.shape)),
} as const;

/** One canonical body as a profile produced it, its extras taken out and the keys the body does not have named. */
export interface SplitBody {
  body: Record<string, unknown>;
  extras?: Record<string, unknown>;
  /** Keys the profile produced that the canonical body does not have (dropped; D-321). */
  dropped: string[];
  /** Why `extras` cannot be kept, when it cannot. */
  invalidExtras?: string;
}

/** Takes a profile's `extras` out of its output and names the keys the canonical body of `kind` would drop. */
export function splitBody(kind: "lead" | "appointment", output: Record<string, unknown>): SplitBody {
  const fields = CANONICAL_FIELDS[kind];
  // Most outputs are a canonical body and nothing more: the output itself is the body (it is validated into a new
  // object next), without the copy a rest pattern makes on every request.
  let plain = true;
  for (const key in output) {
    if (!fields.has(key)) {
      plain = false;
      break;
    }
  }
  if (plain) return { body: output, dropped: [] };
  const { [EXTRAS_KEY]: extras, ...body } = output;
  const dropped = Object.keys(body).filter((key) => !fields.has(key) && body[key] !== undefined);
  if (extras === undefined || extras === null) return { body, dropped };
  if (typeof extras !== "object" || Array.isArray(extras)) {
    return { body, dropped, invalidExtras: "must be an object of the vendor's other details" };
  }
  if (Buffer.byteLength(JSON.stringify(extras)) > EXTRAS_MAX_BYTES) {
    return { body, dropped, invalidExtras: `must be at most ${EXTRAS_MAX_BYTES} bytes as JSON` };
  }
  return { body, extras: extras as Record<string, unknown>, dropped };
}

/** One key a profile produced that the canonical body does not have (D-321). */
export interface DroppedKeyWarning {
  /** Where it is in the output: `service`, or a record's `records[1].body.service`. */
  key: string;
  message: string;
}

/**
 * A warning per dropped key of an outcome (D-321), as the preview, the test endpoints, publishing and `profile test`
 * give it: the value did not fail the mapping, it vanished, and the owner is told where to keep it instead.
 */
export function droppedWarnings(outcome: { ok: boolean; dropped?: string[] }): DroppedKeyWarning[] {
  if (!outcome.ok || !outcome.dropped) return [];
  return outcome.dropped.map((key) => ({
    key,
    message: `the canonical body has no field "${key.split(".").at(-1)}": its value is dropped (put it in extras to keep it)`,
  }));
}
