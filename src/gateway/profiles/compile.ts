import jsonata from "jsonata";
import { asJsonataFailure, isStackOverflow } from "./jsonata-error.js";
import { compileLinear, UnsupportedRegexError } from "./linear-regexp.js";
import { lineColumn } from "./position.js";
import type { CompileError, CompileResult } from "./types.js";

/** Profiles are hand-written mappings; this is far above any real one and keeps parsing cheap on the main thread. */
export const MAX_EXPRESSION_LENGTH = 100_000;

export type ParseResult = { ok: true; ast: jsonata.ExprNode } | { ok: false; error: CompileError };

/**
 * Parses a profile expression: JSONata syntax, then every regex literal through the linear-time engine, so a pattern
 * RE2 cannot run (backreference, lookaround) is refused when the version is saved rather than when a vendor posts.
 */
export function parseProfile(expression: string): ParseResult {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return { ok: false, error: { message: `expression is longer than ${MAX_EXPRESSION_LENGTH} characters` } };
  }
  let ast: jsonata.ExprNode;
  try {
    ast = jsonata(expression).ast();
  } catch (error) {
    if (isStackOverflow(error)) return { ok: false, error: { message: "expression is nested too deeply" } };
    const failure = asJsonataFailure(error);
    return { ok: false, error: located(expression, failure.message, failure.position) };
  }
  for (const node of regexNodes(ast)) {
    try {
      compileLinear(node.value.source, node.value.flags);
    } catch (error) {
      if (!(error instanceof UnsupportedRegexError)) throw error;
      return { ok: false, error: located(expression, error.message, node.position) };
    }
  }
  return { ok: true, ast };
}

export function compileProfile(expression: string): CompileResult {
  const parsed = parseProfile(expression);
  return parsed.ok ? { ok: true } : { ok: false, error: parsed.error };
}

function located(expression: string, message: string, position: number | undefined): CompileError {
  if (position === undefined) return { message };
  return { message, position, ...lineColumn(expression, position) };
}

interface RegexNode {
  value: RegExp;
  position?: number;
}

/** Every regex literal in the tree; the AST is plain objects and arrays, walked iteratively (no recursion limit). */
function regexNodes(ast: jsonata.ExprNode): RegexNode[] {
  const found: RegexNode[] = [];
  const seen = new Set<object>();
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null || seen.has(node) || node instanceof RegExp) continue;
    seen.add(node);
    if ("type" in node && node.type === "regex" && "value" in node && node.value instanceof RegExp) {
      const position = "position" in node && typeof node.position === "number" ? node.position : undefined;
      found.push(position === undefined ? { value: node.value } : { value: node.value, position });
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return found;
}
