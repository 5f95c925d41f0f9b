import { createHash } from "node:crypto";
import { canonicalDigest } from "../../canonical-json.js";
import { describeOutcome, type MappedRecord, type MappingOutcome } from "../profiles/index.js";

/**
 * What one hook payload becomes (docs/connections.md, "Store first, map after"): the records its profile produced, or
 * the payload held for the owner with the reason. A profile error is never the vendor's to hear about.
 */
export type HookMapping =
  | { held: false; records: readonly MappedRecord[]; profileVersionId: string }
  | { held: true; reason: string; profileVersionId: string };

/** A mapping's outcome as records (one canonical body is one record of the profile's kind), or a held payload. */
export function hookMapping(
  kind: "lead" | "appointment",
  profileVersionId: string,
  outcome: MappingOutcome,
): HookMapping {
  if (outcome.ok && "records" in outcome) return { held: false, records: outcome.records, profileVersionId };
  if (outcome.ok) {
    const record: MappedRecord = outcome.extras
      ? { kind, body: outcome.body, extras: outcome.extras }
      : { kind, body: outcome.body };
    return { held: false, records: [record], profileVersionId };
  }
  return { held: true, reason: describeOutcome(outcome), profileVersionId };
}

/**
 * The submission idempotency key of a record (D-305): from the vendor's own id where the profile names one — so a
 * vendor's retry never makes a second submission — with the change it is (a reschedule, a cancellation) apart from
 * the booking it changes; without an id, the record's own content: `bodyDigest`, its body's canonicalDigest when the
 * caller has it already (a row's payloadDigest is the same digest: one walk of the body, not two, D-365).
 */
export function recordKey(record: MappedRecord, bodyDigest?: string): string {
  const action = record.action ?? "create";
  if (record.id !== undefined) return action === "create" ? `hook:${record.id}` : `hook:${action}:${record.id}`;
  return `hook:body:${bodyDigest ?? canonicalDigest(record.body)}`;
}

/** A held payload's key: its content, so the vendor's retry of the same unmappable payload is held once. */
export function heldKey(tree: unknown): string {
  return `hook:held:${canonicalDigest(tree)}`;
}

/** A notified record's fetch: the values its URL is filled with, in one key per target. */
export function fetchKey(target: Readonly<Record<string, string>>): string {
  return `hook:fetch:${createHash("sha256")
    .update(JSON.stringify(Object.entries(target).sort()))
    .digest("base64url")}`;
}
