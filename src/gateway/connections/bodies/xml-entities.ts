import type { X2jOptions } from "fast-xml-parser";

const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#x([0-9A-Fa-f]+)|#([0-9]+));/g;
const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

type EntityDecoder = NonNullable<X2jOptions["entityDecoder"]>;

/**
 * The parser's entity decoder: XML's five predefined entities and character references, and nothing else (D-282).
 * The prescan has refused every other reference and every DOCTYPE already, so the hooks for declared and external
 * entities can only be reached by a fault: they refuse.
 */
export const xmlEntities: EntityDecoder = {
  decode: (text) => (text.includes("&") ? text.replace(REFERENCE, replacement) : text),
  setExternalEntities: refuseEntities,
  addInputEntities: refuseEntities,
  reset: () => {},
  setXmlVersion: () => {},
};

function replacement(_match: string, name: string | undefined, hex: string | undefined, decimal: string | undefined) {
  if (name !== undefined) return PREDEFINED[name] ?? "";
  return String.fromCodePoint(hex !== undefined ? Number.parseInt(hex, 16) : Number(decimal));
}

function refuseEntities(): void {
  throw new Error("declared entities are refused before parsing (D-282)");
}
