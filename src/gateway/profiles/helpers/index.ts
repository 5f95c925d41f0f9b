import { joinAddress } from "./address.js";
import { normalizeEmail } from "./email.js";
import { parseJson } from "./json.js";
import { localToUtc } from "./local-time.js";
import { joinName, splitName } from "./names.js";
import { phoneE164 } from "./phone.js";
import { defaultTo, toBool } from "./values.js";

export { HelperError } from "./text.js";

/**
 * The lead-domain functions bound into every profile (documented with examples in docs/profiles.md), on both
 * evaluation paths: program.ts registers them with the interpreter, and the compiled path (program.ts, inline.ts)
 * calls them directly. They take any JSON value and return undefined for a missing input, the JSONata convention, so
 * they compose with `$default` and leave "missing" to the canonical validation, which names the field.
 */
export const HELPERS: Readonly<Record<string, (...args: unknown[]) => unknown>> = {
  phoneE164: (value, country) => phoneE164(value, country),
  normalizeEmail: (value) => normalizeEmail(value),
  joinName: (...parts) => joinName(...parts),
  splitName: (value) => splitName(value),
  joinAddress: (street, city, state, zip) => joinAddress(street, city, state, zip),
  localToUtc: (local, zone) => localToUtc(local, zone),
  toBool: (value) => toBool(value),
  default: (value, fallback) => defaultTo(value, fallback),
  parseJson: (text) => parseJson(text),
};
