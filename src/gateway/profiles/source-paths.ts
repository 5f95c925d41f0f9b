import type jsonata from "jsonata";

/** The parts of JSONata's AST this module reads (the published ExprNode types them as `any`). */
interface Node {
  type?: string;
  value?: unknown;
  steps?: Node[];
  stages?: Node[];
  /** A standalone variable's filters; inside a path JSONata calls them `stages`. */
  predicate?: Node[];
  expr?: Node;
  lhs?: Node | Node[][];
  rhs?: Node;
  expressions?: Node[];
  arguments?: Node[];
  procedure?: Node;
}

type Variables = ReadonlyMap<string, string>;

const LITERALS = new Set(["string", "number", "value", "regex"]);

/**
 * Which vendor field feeds each canonical field, where the expression makes it plain, so a validation error can name
 * both (docs/profiles.md: `400 {error, field, sourcePath?}`). Plain means: the profile's result is an object constructor (at
 * the end of a block or of a path like `lead.{…}`) and the field's value is a path of names (`contact.email`,
 * `phones[0]`), a variable bound in that block to such a path, or a function call whose only non-literal argument is
 * one (`$phoneE164(contact.phone, "US")`). Anything else — concatenations, conditions, two-path calls — has no single
 * source, and no sourcePath is claimed. Records (D-300) are found the same way: a record's body field is keyed
 * `body.email`, and in a list written out as `[{…}, {…}]` by its index, `[1].body.startsAt`.
 */
export function sourcePaths(ast: jsonata.ExprNode): Map<string, string> {
  const found = new Map<string, string>();
  collect(ast as Node, "", new Map(), [], found);
  return found;
}

function collect(node: Node, prefix: string, vars: Variables, context: string[], found: Map<string, string>): void {
  if (node.type === "block" && node.expressions) {
    const scoped = new Map(vars);
    for (const expression of node.expressions.slice(0, -1)) {
      if (expression.type === "bind" && isNode(expression.lhs) && typeof expression.lhs.value === "string") {
        const bound = expression.rhs && pathOf(expression.rhs, scoped, context);
        if (bound) scoped.set(expression.lhs.value, bound.join("."));
        else scoped.delete(expression.lhs.value);
      }
    }
    const last = node.expressions.at(-1);
    if (last) collect(last, prefix, scoped, context, found);
    return;
  }
  if (node.type === "path" && node.steps && node.steps.length > 1) {
    const last = node.steps.at(-1);
    const head = pathOf({ type: "path", steps: node.steps.slice(0, -1) }, vars, context);
    if (last && isObjectConstructor(last) && head) collect(last, prefix, vars, head, found);
    return;
  }
  if (isArrayConstructor(node) && node.expressions) {
    // Records written out as a list (`[{…}, {…}]`, D-300): each object constructor is the record at its index, up to
    // the first item that is not one (a path may stand for any number of records, and shift the rest).
    for (const [index, item] of node.expressions.entries()) {
      if (!isObjectConstructor(item)) return;
      collect(item, `${prefix}[${index}]`, vars, context, found);
    }
    return;
  }
  if (!isObjectConstructor(node) || !Array.isArray(node.lhs)) return;
  for (const pair of node.lhs) {
    const [key, value] = pair;
    if (key?.type !== "string" || typeof key.value !== "string" || !value) continue;
    const field = prefix ? `${prefix}.${key.value}` : key.value;
    if (isObjectConstructor(value)) {
      collect(value, field, vars, context, found);
      continue;
    }
    const source = sourceOf(value, vars, context);
    if (source) found.set(field, source);
  }
}

function sourceOf(node: Node, vars: Variables, context: string[]): string | undefined {
  if (node.type === "function" && node.procedure?.type === "variable" && node.arguments) {
    const sources = node.arguments.filter((a) => !LITERALS.has(a.type ?? ""));
    const only = sources.length === 1 && sources[0] ? pathOf(sources[0], vars, context) : undefined;
    return only?.join(".");
  }
  return pathOf(node, vars, context)?.join(".");
}

/** A path of plain names (a step may be indexed by a number) as its steps; undefined for anything else. */
function pathOf(node: Node, vars: Variables, context: string[]): string[] | undefined {
  if (node.type === "variable" && typeof node.value === "string") {
    const bound = vars.get(node.value);
    const index = indexOf(node);
    return bound === undefined || index === undefined ? undefined : [bound + index];
  }
  if (node.type !== "path" || !node.steps || node.steps.length === 0) return undefined;
  const [first, ...rest] = node.steps;
  let steps = [...context];
  let names = node.steps;
  if (first?.type === "variable") {
    // `$` is the current context, `$$` the payload's root, `$name` a block variable bound to a path.
    names = rest;
    const index = indexOf(first);
    if (index === undefined) return undefined;
    if (first.value === "$") steps = [];
    else if (first.value !== "") {
      const bound = vars.get(String(first.value));
      if (bound === undefined) return undefined;
      steps = [bound];
    }
    if (index) {
      if (steps.length === 0) return undefined;
      steps[steps.length - 1] += index;
    }
  }
  for (const step of names) {
    const index = indexOf(step);
    if (step.type !== "name" || typeof step.value !== "string" || index === undefined) return undefined;
    steps.push(step.value + index);
  }
  return steps.length > 0 ? steps : undefined;
}

/** "" for a step without predicates, "[n]" for one indexed by a number literal, undefined for any other filter. */
function indexOf(step: Node): string | undefined {
  const filters = step.stages ?? step.predicate ?? [];
  if (filters.length === 0) return "";
  const index = filters.length === 1 ? filters[0]?.expr : undefined;
  return index?.type === "number" && typeof index.value === "number" ? `[${index.value}]` : undefined;
}

function isObjectConstructor(node: Node): boolean {
  return node.type === "unary" && node.value === "{";
}

function isArrayConstructor(node: Node): boolean {
  return node.type === "unary" && node.value === "[";
}

function isNode(value: Node | Node[][] | undefined): value is Node {
  return value !== undefined && !Array.isArray(value);
}
