/**
 * A place in a payload as a JSONata path: field names, list positions, and filters that pick a list item by its key
 * (`answers[name="Email"]`) — never by its position, which changes from one submission to the next (docs/profiles.md,
 * "Suggested profiles").
 */
export type Segment =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "filter"; key: readonly string[]; value: string | number; first: boolean };

export interface PayloadPath {
  /** The path of a string field holding a JSON document this path reads inside (decoded with `$parseJson`). */
  root?: string;
  segments: readonly Segment[];
}

/** Names JSONata would read as something else: operators, literals, variables, numbers. */
const RESERVED = new Set(["and", "or", "in", "true", "false", "null", "function"]);
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A field name as JSONata reads it: bare when it can be, in backticks otherwise; undefined when it cannot be. */
export function fieldName(name: string): string | undefined {
  if (PLAIN_NAME.test(name) && !RESERVED.has(name)) return name;
  if (name.includes("`") || name === "") return undefined;
  return `\`${name}\``;
}

/** The segments as JSONata text (undefined when a name cannot be written); a root is the caller's to prefix. */
export function renderSegments(segments: readonly Segment[]): string | undefined {
  let text = "";
  for (const segment of segments) {
    if (segment.kind === "index") {
      text += `[${segment.index}]`;
      continue;
    }
    if (segment.kind === "field") {
      const name = fieldName(segment.name);
      if (name === undefined) return undefined;
      text += text === "" ? name : `.${name}`;
      continue;
    }
    const key = segment.key.map(fieldName);
    if (key.some((part) => part === undefined)) return undefined;
    const literal = typeof segment.value === "number" ? String(segment.value) : JSON.stringify(segment.value);
    text += `[${key.join(".")}=${literal}]${segment.first ? "[0]" : ""}`;
  }
  return text;
}

/** The whole path: prefixed with the variable (or the `$parseJson(…)` call) its JSON-string root is bound to. */
export function renderPath(path: PayloadPath, rootText: (root: string) => string): string | undefined {
  const rest = renderSegments(path.segments);
  if (rest === undefined) return undefined;
  // A payload that is itself a list starts at `$`: a leading `[0]` would be read as a list constructor.
  if (path.root === undefined) return rest === "" ? "$" : rest.startsWith("[") ? `$${rest}` : rest;
  const head = rootText(path.root);
  if (rest === "") return head;
  return rest.startsWith("[") ? `${head}${rest}` : `${head}.${rest}`;
}

/** How a path reads for an owner, with its JSON-string root decoded in place. */
export function displayPath(path: PayloadPath): string | undefined {
  return renderPath(path, (root) => `$parseJson(${root})`);
}
