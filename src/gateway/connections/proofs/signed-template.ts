/**
 * The string a vendor signs, declared as a template (docs/connections.md, "Proofs and handshakes"): `{body}` is the raw
 * body bytes exactly as received, `{timestamp}` the timestamp text exactly as sent, `{method}`, `{url}` (the full URL
 * the vendor called), `{path}` and `{query}` (without its `?`) come from the request line; everything else is literal
 * text (Calendly's `{timestamp}.{body}`, LinkedIn's `hmacsha256={body}`).
 */
export const SIGNED_FIELDS = ["body", "timestamp", "method", "url", "path", "query"] as const;
export type SignedField = (typeof SIGNED_FIELDS)[number];

export type SignedPart = { literal: string } | { field: SignedField };

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** The template's parts, or undefined when it names an unknown field or has a stray brace. */
export function parseSignedTemplate(template: string): SignedPart[] | undefined {
  const parts: SignedPart[] = [];
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const field = SIGNED_FIELDS.find((name) => name === match[1]);
    if (field === undefined) return undefined;
    if (match.index > at) parts.push({ literal: template.slice(at, match.index) });
    parts.push({ field });
    at = match.index + match[0].length;
  }
  if (at < template.length) parts.push({ literal: template.slice(at) });
  const literalBraces = parts.some((part) => "literal" in part && /[{}]/.test(part.literal));
  return literalBraces ? undefined : parts;
}
