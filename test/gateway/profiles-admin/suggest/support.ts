import { ProfileProgram } from "../../../../src/gateway/profiles/program.js";
import { suggestProfile } from "../../../../src/gateway/profiles-admin/suggest/index.js";
import type { Suggestion, SuggestKind } from "../../../../src/gateway/profiles-admin/suggest/types.js";

/** A suggestion and what its expression makes of each of the payloads it was made from. */
export async function suggestAndMap(
  kind: SuggestKind,
  payloads: unknown[],
): Promise<{ suggestion: Suggestion; outputs: unknown[] }> {
  const suggestion = suggestProfile({ kind, payloads });
  const program = new ProfileProgram(suggestion.expression);
  const outputs: unknown[] = [];
  for (const payload of payloads)
    outputs.push(await program.evaluate(structuredClone(payload), 1_000, performance.now() + 1_000));
  return { suggestion, outputs };
}

/** The canonical field's entry of a suggestion, or undefined. */
export const fieldOf = (suggestion: Suggestion, field: string) => suggestion.fields.find((f) => f.field === field);

/** A lead in flat snake_case, as a web form posts it; `overrides` replace or (undefined) remove fields. */
export function formLead(n: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const people = [
    ["Avery", "Castillo", "avery.castillo@example.com", "(512) 555-0142", "4102 Duval St", "Austin", "TX", "78751"],
    ["Jordan", "Pike", "jpike@example.org", "512.555.0187", "77 Ranch Road 620 S", "Lakeway", "TX", "78734"],
    ["Samira", "Haddad", "samira.h@example.net", "737-555-0110", "1900 E Oltorf St", "Austin", "TX", "78741"],
  ] as const;
  const [first, last, email, phone, street, city, state, zip] = people[n % people.length] ?? people[0];
  const lead: Record<string, unknown> = {
    first_name: first,
    last_name: last,
    email_address: email,
    phone_number: phone,
    street_address: street,
    city,
    state,
    zip_code: zip,
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete lead[key];
    else lead[key] = value;
  }
  return lead;
}
