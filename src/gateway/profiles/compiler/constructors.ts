import { type AstNode, children, pairs } from "./ast.js";
import type { CompileNode } from "./paths.js";
import { Bailout, type Code, fail, type Run, type Sequence, sequenceOf, tick } from "./runtime.js";
import type { Scope } from "./scope.js";
import { append } from "./values.js";

/**
 * `[a, b, …]` (JSONata's evaluateUnary for `[`): each item's value appended (a sequence or array is spread one level,
 * a nested `[…]` kept whole), missing values skipped. `cons` marks it as built, so a path never flattens it.
 */
export function compileArray(node: AstNode, scope: Scope, compile: CompileNode): Code {
  const items = children(node, "expressions").map((item) => ({
    code: compile(item, scope),
    nested: item.value === "[",
  }));
  const cons = node.consarray === true;
  return (input, run) => {
    let result: unknown[] = [];
    for (const item of items) {
      const value = item.code(input, run);
      if (value === undefined) continue;
      if (item.nested) result.push(value);
      else result = append(result, value) as unknown[];
    }
    if (cons) Object.defineProperty(result, "cons", { enumerable: false, configurable: false, value: true });
    return result;
  };
}

interface Pair {
  key: Code;
  value: Code;
  /** The key when it is a plain string literal. */
  literal: string | undefined;
}

const RESERVED_KEYS = new Set(["_jsonata_lambda", "_jsonata_function"]);

/**
 * `{key: value, …}` (JSONata's evaluateGroupExpression): the input's items are grouped by each pair's key, evaluated
 * per item, and each value is evaluated against its group (one item, or the items appended together). Over a single
 * item with distinct literal keys — what a mapping nearly always is — that is simply each value against the input.
 */
export function compileObject(node: AstNode, scope: Scope, compile: CompileNode): Code {
  const entries: Pair[] = pairs(node).map(([key, value]) => ({
    key: compile(key, scope),
    value: compile(value, scope),
    literal:
      key.type === "string" && typeof key.value === "string" && !key.predicate && !key.keepArray
        ? key.value
        : undefined,
  }));
  const literals = entries.map((entry) => entry.literal);
  const simple =
    literals.every((key) => key !== undefined && !RESERVED_KEYS.has(key)) && new Set(literals).size === literals.length;

  return (input, run) => {
    if (simple && !Array.isArray(input)) {
      const result: Record<string, unknown> = Object.create(null);
      for (const entry of entries) {
        const value = entry.value(input, run);
        if (value !== undefined) result[entry.literal as string] = value;
      }
      return result;
    }
    return group(entries, input, run);
  };
}

interface Group {
  data: unknown;
  pair: number;
}

function group(entries: Pair[], input: unknown, run: Run): Record<string, unknown> {
  const items: Sequence = Array.isArray(input) ? input : sequenceOf(input);
  // JSONata pushes `undefined` into an empty input array — the document's own array — so that an object is still
  // made. A compiled run must leave the document as it found it for the interpreter's rerun: this corner is its.
  if (items.length === 0) throw new Bailout("an object constructor over an empty array");
  const groups: Record<string, Group> = Object.create(null);
  for (const item of items) {
    tick(run);
    for (let pair = 0; pair < entries.length; pair++) {
      const key = (entries[pair] as Pair).key(item, run);
      if (key === undefined) continue;
      if (typeof key !== "string") throw fail("T1003", key);
      if (RESERVED_KEYS.has(key)) throw fail("D1013", key);
      const existing = Object.hasOwn(groups, key) ? groups[key] : undefined;
      if (existing === undefined) {
        groups[key] = { data: item, pair };
      } else {
        if (existing.pair !== pair) throw fail("D1009", key);
        existing.data = append(existing.data, item);
      }
    }
  }
  const result: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(groups)) {
    const { data, pair } = groups[key] as Group;
    const value = (entries[pair] as Pair).value(data, run);
    if (value !== undefined) result[key] = value;
  }
  return result;
}
