import type { Leaf } from "./leaves.js";
import { displayPath, renderPath } from "./path.js";
import type { Confidence } from "./types.js";

/** One canonical field the suggestion maps: its JSONata text, the leaves it reads, and why. */
export interface Mapped {
  field: string;
  text: string;
  sources: readonly Leaf[];
  confidence: Confidence;
  reason: string;
}

/** A canonical field left out, and what the owner should know about it (written as a comment in the expression). */
export interface Missed {
  field: string;
  note: string;
}

/**
 * Writes leaves' paths into the expression. A path inside a JSON document held in a string reads it through a block
 * variable bound once to `$parseJson(<field>)`; the variables are numbered in the order they are first used.
 */
export class PathWriter {
  readonly #roots = new Map<string, string>();

  path(leaf: Leaf): string {
    const text = renderPath(leaf.path, (root) => this.#variable(root));
    // Leaves are made only from paths that render (walk.ts), so this holds; the fallback keeps the types honest.
    return text ?? "$";
  }

  /** `$doc1 := $parseJson(entry.data);` for each JSON-string root used. */
  bindings(): string[] {
    return [...this.#roots].map(([root, variable]) => `${variable} := $parseJson(${root});`);
  }

  #variable(root: string): string {
    let variable = this.#roots.get(root);
    if (variable === undefined) {
      variable = `$doc${this.#roots.size + 1}`;
      this.#roots.set(root, variable);
    }
    return variable;
  }
}

/** A leaf's path for an owner to read: its JSON-string root shown decoded in place. */
export const shown = (leaf: Leaf): string => displayPath(leaf.path) ?? leaf.id;

/** `$default(a, $default(b, c))`: the first of several places that has a value in a payload. */
export function firstOf(texts: readonly string[]): string {
  const [head, ...rest] = texts;
  if (head === undefined) return "()";
  return rest.length === 0 ? head : `$default(${head}, ${firstOf(rest)})`;
}
