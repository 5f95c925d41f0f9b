import { HookBodyError } from "./hook-body-error.js";

/** The four body types a hook connection takes (docs/connections.md, "Bodies"). */
export type HookBodyType = "json" | "form" | "multipart" | "xml";

// RFC 9110 §8.3.1: type "/" subtype *( OWS ";" OWS parameter ), names case-insensitive, a value a token or quoted.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const ESSENCE = new RegExp(`^[ \\t]*(${TOKEN})/(${TOKEN})[ \\t]*(?=;|$)`);
const PARAMETER = new RegExp(`;[ \\t]*(${TOKEN})=(${TOKEN}|"(?:[^"\\\\]|\\\\.)*")[ \\t]*(?=;|$)`, "y");

/** Charsets that are UTF-8 on the wire: US-ASCII is a subset (D-281). */
const UTF8_LABELS = new Set(["utf-8", "utf8", "us-ascii"]);

/**
 * The body type a content type names, matched case-insensitively with its parameters. A form or XML body whose
 * `charset` is not UTF-8 is refused (D-281); JSON's is ignored, as intake does (RFC 8259 §11 defines none), and a
 * multipart body's parts carry their own.
 */
export function hookBodyType(contentType: string | undefined): HookBodyType {
  const essence = ESSENCE.exec(contentType ?? "");
  if (!contentType || !essence) throw unsupported(contentType);
  const type = essence[1]?.toLowerCase();
  const subtype = essence[2]?.toLowerCase() ?? "";
  const kind = bodyTypeOf(type, subtype);
  if (!kind) throw unsupported(contentType);
  const charset = parameter(contentType, essence[0].length, "charset");
  if ((kind === "form" || kind === "xml") && charset !== undefined && !isUtf8(charset)) {
    throw new HookBodyError("unsupported_charset", `charset ${charset} is not taken: send UTF-8`, {
      details: { charset },
    });
  }
  return kind;
}

export function isUtf8(label: string): boolean {
  return UTF8_LABELS.has(label.trim().toLowerCase());
}

function bodyTypeOf(type: string | undefined, subtype: string): HookBodyType | undefined {
  if (type === "application" && subtype === "x-www-form-urlencoded") return "form";
  if (type === "multipart" && subtype === "form-data") return "multipart";
  if (type !== "application" && type !== "text") return undefined;
  if (subtype === "json" || subtype.endsWith("+json")) return "json";
  if (subtype === "xml" || subtype.endsWith("+xml")) return "xml";
  return undefined;
}

/** A parameter's value, unquoted; a malformed parameter is skipped rather than refused, as most servers do. */
function parameter(contentType: string, from: number, name: string): string | undefined {
  let at = from;
  while (at < contentType.length) {
    PARAMETER.lastIndex = at;
    const match = PARAMETER.exec(contentType);
    if (match) {
      if (match[1]?.toLowerCase() === name) return unquote(match[2] ?? "");
      at = PARAMETER.lastIndex;
    } else {
      const next = contentType.indexOf(";", at + 1);
      if (next < 0) return undefined;
      at = next;
    }
  }
  return undefined;
}

function unquote(value: string): string {
  return value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value;
}

function unsupported(contentType: string | undefined): HookBodyError {
  return new HookBodyError(
    "unsupported_media_type",
    contentType
      ? `content type ${contentType.slice(0, 100)} is not taken: send JSON, form-urlencoded, multipart/form-data or XML`
      : "the request has no content type",
  );
}
