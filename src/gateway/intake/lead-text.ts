import { badRequest } from "../../http/errors.js";

/**
 * Anything the check below looks at: C0 and C1 controls (tab and line breaks among them), DEL, the Unicode line and
 * paragraph separators, and the bidirectional embeddings, overrides and isolates. One test of this per field is all a
 * clean lead costs.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const NOTEWORTHY = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** Tab and line breaks (CR, LF, NEL, the line and paragraph separators): each becomes one space. */
const LINE_BREAK_OR_TAB = /[\t\n\r\u0085\u2028\u2029]/g;
/**
 * Refused: every other control character, and U+202A–U+202E and U+2066–U+2069, which reorder how the text displays
 * (a name or address that reads differently in the owner's CRM than what was stored). The direction marks (LRM, RLM,
 * ALM) only hint at direction, belong in right-to-left names, and are kept.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const REFUSED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * The gateway's own rule for a lead's text, after §2.7 validation (docs/decisions.md, "Lead text at intake"): a field
 * with a control character or a bidirectional override is a 400 naming the field; tab and line breaks become spaces
 * (one each, so every length §2.7 accepted still holds). The sandbox, which is the platform, keeps §2.7 as written:
 * this runs at the gateway's intake, not in the shared schema. Returns the body, a copy when a field changed.
 */
export function checkLeadText(body: Record<string, unknown>): Record<string, unknown> {
  let checked = body;
  for (const field in body) {
    const value = body[field];
    if (typeof value !== "string" || !NOTEWORTHY.test(value)) continue;
    if (REFUSED.test(value)) {
      throw badRequest(`${field}: must not contain control characters or bidirectional overrides`, { field });
    }
    if (checked === body) checked = { ...body };
    checked[field] = value.replace(LINE_BREAK_OR_TAB, " ");
  }
  return checked;
}
