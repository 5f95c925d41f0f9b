/** A preset's answer as its preset.json declares it (hooks contract, "Answer"). */
export interface AnswerDeclared {
  status: number;
  contentType: string;
  body?: string;
}

/** The answer a vendor reads: the status, the media type (without parameters) and the body. */
export interface AnswerToVendor {
  status: number;
  contentType: string;
  body: string;
}

/**
 * The answer the vendor must get for a JSON payload, rendered from the declaration here rather than by the gateway's
 * renderer: each `{{dotted.path}}` is the payload's value there (a number or boolean as its JSON text, an absent one
 * empty), escaped for the content type. Other body types carry no placeholder in any preset's answer: one that did
 * would have to be rendered from its parsed tree, which this does not do, and says so.
 */
export function expectedAnswer(declared: AnswerDeclared, payload: string, bodyType: string): AnswerToVendor {
  const template = declared.body ?? "";
  const placeholders = [...template.matchAll(/\{\{([^{}]+)\}\}/g)];
  if (placeholders.length > 0 && bodyType !== "json") {
    throw new Error(`answer: placeholders over a ${bodyType} body are not rendered by this suite`);
  }
  const tree: unknown = placeholders.length > 0 ? JSON.parse(payload) : undefined;
  const body = template.replaceAll(/\{\{([^{}]+)\}\}/g, (_, path: string) =>
    escaped(declared.contentType, textAt(tree, path.trim())),
  );
  return { status: declared.status, contentType: declared.contentType, body };
}

function textAt(tree: unknown, path: string): string {
  let at: unknown = tree;
  for (const name of path.split(".")) {
    at =
      at !== null && typeof at === "object" && !Array.isArray(at) ? (at as Record<string, unknown>)[name] : undefined;
  }
  if (typeof at === "string") return at;
  if (typeof at === "number" || typeof at === "boolean") return String(at);
  return "";
}

function escaped(contentType: string, text: string): string {
  if (contentType === "application/json") return JSON.stringify(text).slice(1, -1);
  if (contentType === "application/xml") {
    const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
    return text.replaceAll(/[&<>"']/g, (c) => entities[c] ?? c);
  }
  return text;
}
