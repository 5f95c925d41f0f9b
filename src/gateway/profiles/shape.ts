import { hash } from "node:crypto";
import type jsonata from "jsonata";

/**
 * A digest of what an expression does: its parsed tree with the source positions left out, so two texts that differ
 * only in whitespace or comments have the same shape. Drafts are known by it (profiles-admin/preview.ts), so an edit
 * that changes nothing cannot make a runaway draft look new to the suspect lane.
 */
export function expressionShape(expression: string, ast: jsonata.ExprNode): string {
  let text: string;
  try {
    text = `ast:${JSON.stringify(ast, withoutPositions)}`;
  } catch {
    // A tree too deep to serialise (the parser took it, so it is near the stack's end): its text without whitespace,
    // which may merge two drafts differing only inside a string (of one company), never split one.
    text = `text:${expression.replace(/\s+/g, "")}`;
  }
  return hash("sha256", text, "base64url").slice(0, 32);
}

function withoutPositions(key: string, value: unknown): unknown {
  if (key === "position") return undefined;
  // A regex literal has no JSON form of its own: without this every pattern would read as `{}`.
  if (value instanceof RegExp) return `/${value.source}/${value.flags}`;
  return value;
}
