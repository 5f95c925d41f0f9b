import { z } from "zod";
import { appointmentSchema } from "../../contract/appointment.js";
import { leadSchema } from "../../contract/lead.js";

/** A field of the canonical record (§2.7/§2.8) and what its validation asks of it. */
export interface CanonicalField {
  field: string;
  type: string;
  required: boolean;
  rules: string[];
}

interface Property {
  type?: string;
  minLength?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
  description?: string;
}

const SCHEMAS = { lead: leadSchema, appointment: appointmentSchema } as const;

/**
 * The canonical record's fields as its validation checks them: read from the one schema intake validates with
 * (src/contract/), so the posting docs cannot state a rule the gateway does not apply (D-326).
 */
export function canonicalFields(kind: "lead" | "appointment"): CanonicalField[] {
  const schema = z.toJSONSchema(SCHEMAS[kind], { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, Property>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([field, property]) => ({
    field,
    type: property.type ?? "any",
    required: required.has(field),
    rules: rulesOf(kind, property),
  }));
}

/** The canonical fields a valid record cannot do without. */
export function requiredFields(kind: "lead" | "appointment"): Set<string> {
  return new Set(canonicalFields(kind).flatMap((f) => (f.required ? [f.field] : [])));
}

function rulesOf(kind: "lead" | "appointment", property: Property): string[] {
  const rules: string[] = [];
  const { minLength, maxLength } = property;
  if (minLength !== undefined && maxLength !== undefined) rules.push(`${minLength} to ${maxLength} characters`);
  else if (maxLength !== undefined) rules.push(`at most ${maxLength} characters`);
  else if (minLength !== undefined) rules.push(`at least ${minLength} character${minLength === 1 ? "" : "s"}`);
  if (property.format === "email") rules.push("a valid e-mail address");
  if (property.format === "date-time") rules.push("an ISO-8601 UTC time ending in Z (2030-01-31T15:00:00Z)");
  else if (property.pattern) rules.push(`matches ${property.pattern}`);
  if (property.description) rules.push(property.description);
  // The gateway's own rule for a lead's text (docs/decisions.md, "Lead text at intake").
  if (kind === "lead" && property.type === "string") {
    rules.push("no control characters or bidirectional overrides (tabs and line breaks become spaces)");
  }
  return rules;
}
