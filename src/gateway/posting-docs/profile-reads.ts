import jsonata from "jsonata";
import {
  children,
  expressionText,
  isArrayConstructor,
  isNode,
  isObjectConstructor,
  LITERALS,
  type Node,
} from "./ast.js";

/** One field of the vendor's body that a profile reads, and what it reads it for (D-326). */
export interface SourceRead {
  /** The field in the vendor's body, dotted; `[]` stands for each item of a list, `[0]` for the first. */
  path: string;
  /** The canonical fields its value goes into. */
  feeds: string[];
  /** What a shipped helper takes it as (`an e-mail address`), when the profile passes it to one. */
  readAs?: string;
  /** The test that picks a list's item, when the value is read from the item it matches (`type = "mobile"`). */
  where?: string;
  /**
   * `required` when the record needs it; `oneOf` when another field may stand in for it (`alternatives` names them);
   * `optional` when the profile does without it (a fallback, a condition, a field the record may leave out).
   */
  need: "required" | "oneOf" | "optional";
  alternatives?: string[];
}

/** What a helper takes each argument as (docs/profiles.md, "Helpers"); the last entry serves the rest. */
const HELPER_ARGUMENTS: Record<string, string[]> = {
  normalizeEmail: ["an e-mail address"],
  phoneE164: ["a phone number", "a country (ISO 3166-1 code)"],
  joinName: ["a part of the person's name"],
  splitName: ["a person's full name"],
  joinAddress: ["a street line (or a list of lines)", "a city", "a state or region", "a postal code"],
  localToUtc: ["a local date and time", "an IANA time zone (America/Chicago)"],
  toBool: ["yes or no (true/false, 1/0, yes/no, y/n, on/off)"],
  parseJson: ["a JSON document inside a string"],
};

/** A variable bound in a block or as a lambda's argument. */
type Binding = PathBinding | { type: "literal"; text: string } | { type: "lambda"; node: Node; scope: Scope };

interface Scope {
  vars: ReadonlyMap<string, Binding>;
  /** The path the expression stands on (`lead` inside `lead.{…}`, a list's item inside its filter). */
  context: string[];
}

/** A path, the test of a filter it crosses, and the filters' own reads to record wherever it is used. */
interface PathBinding {
  type: "path";
  steps: string[];
  where?: string;
  picks?: Pick[];
}

/** A filter's test, read where the path that crosses it feeds a field (it picks the item the value comes from). */
interface Pick {
  test: Node;
  scope: Scope;
}

/** How a read is reached within one canonical field's value. */
interface Reach {
  field: string;
  optional: boolean;
  /** The `$default` whose alternatives it is one of. */
  group?: number;
  readAs?: string;
  where?: string;
}

interface Found {
  path: string;
  reach: Reach;
}

/** What a field read inside a filter is read for. */
const PICKS = "picks the item";

/** Lambdas call each other at most this deep while being read (a recursive profile is read once). */
const MAX_CALL_DEPTH = 8;

/**
 * The vendor's fields a profile reads, derived from its expression's AST at request time (D-326): for each canonical
 * field of the result (`{…}` at the end of a block or of a path like `lead.{…}`), every path of names its value
 * reads, through block variables, `$$`, `$parseJson`, lambdas called with paths or literals, and filters that pick a
 * list's item (their test becomes `where`). `required` names the canonical fields the record cannot do without.
 */
export function profileReads(expression: string, required: ReadonlySet<string>): SourceRead[] {
  const found: Found[] = [];
  const groups = { next: 0 };
  result(jsonata(expression).ast() as Node, { vars: new Map(), context: [] }, "", found, groups);
  return merge(found, required);
}

function result(node: Node, scope: Scope, prefix: string, found: Found[], groups: { next: number }): void {
  if (node.type === "block" && node.expressions) {
    const inner = bindAll(node.expressions.slice(0, -1), scope);
    const last = node.expressions.at(-1);
    if (last) result(last, inner, prefix, found, groups);
    return;
  }
  if (node.type === "path" && node.steps && node.steps.length > 1) {
    const last = node.steps.at(-1);
    if (last && isObjectConstructor(last)) {
      const head = resolve({ type: "path", steps: node.steps.slice(0, -1) }, scope, [], undefined);
      result(last, { ...scope, context: head?.steps ?? scope.context }, prefix, found, groups);
    }
    return;
  }
  if (isArrayConstructor(node)) {
    for (const item of node.expressions ?? []) result(item, scope, prefix, found, groups);
    return;
  }
  if (node.type === "condition") {
    // `$slot ? {…}`: a record produced only sometimes; its fields are read when it is.
    for (const branch of [node.then, node.else]) if (branch) result(branch, scope, prefix, found, groups);
    return;
  }
  if (!isObjectConstructor(node) || !Array.isArray(node.lhs)) return;
  for (const [key, value] of node.lhs) {
    if (key?.type !== "string" || typeof key.value !== "string" || !value) continue;
    const field = prefix ? `${prefix}.${key.value}` : key.value;
    if (isObjectConstructor(value)) result(value, scope, field, found, groups);
    else reads(value, scope, { field, optional: false }, found, groups, 0);
  }
}

/** The bindings of a block's expressions before its last, each seeing those before it. */
function bindAll(expressions: Node[], scope: Scope): Scope {
  const vars = new Map(scope.vars);
  for (const expression of expressions) {
    if (expression.type !== "bind" || !isNode(expression.lhs) || typeof expression.lhs.value !== "string") continue;
    const bound = expression.rhs ? bindingOf(expression.rhs, { vars, context: scope.context }) : undefined;
    if (bound) vars.set(expression.lhs.value, bound);
    else vars.delete(expression.lhs.value);
  }
  return { vars, context: scope.context };
}

function bindingOf(node: Node, scope: Scope): Binding | undefined {
  if (node.type === "lambda") return { type: "lambda", node, scope };
  if (LITERALS.has(node.type ?? "") || isLiteralList(node)) return { type: "literal", text: text(node, scope) };
  const parsed = parseJsonArgument(node);
  const path = resolve(parsed ?? node, scope, [], undefined);
  if (!path) return undefined;
  // The decoded document's fields are read through the string that carries it: `rawRequest → q3_name`.
  return parsed ? { type: "path", steps: [...path.steps.slice(0, -1), `${path.steps.at(-1)} →`] } : path;
}

function isLiteralList(node: Node): boolean {
  return isArrayConstructor(node) && (node.expressions ?? []).every((e) => LITERALS.has(e.type ?? ""));
}

/** `$parseJson(x)`: its argument, whose decoded document the binding stands for. */
function parseJsonArgument(node: Node): Node | undefined {
  if (node.type !== "function" || node.procedure?.value !== "parseJson") return undefined;
  return node.arguments?.[0];
}

const text = (node: Node, scope: Scope) =>
  expressionText(node, (name) => {
    const bound = scope.vars.get(name);
    if (bound?.type === "literal") return bound.text;
    return bound?.type === "path" ? bound.steps.join(".") : undefined;
  });

/**
 * A path of names as its steps from the payload's root (`$` the context, `$$` the root, `$name` a bound path), with
 * the filters it crosses: their own reads are recorded (they pick the item), their test kept as `where`.
 */
function resolve(node: Node, scope: Scope, found: Found[], reach: Reach | undefined): PathBinding | undefined {
  const steps = node.type === "variable" ? [node] : node.steps;
  if (!steps || steps.length === 0) return undefined;
  let path: string[] = [...scope.context];
  let where: string | undefined;
  const picks: Pick[] = [];
  for (const [index, step] of steps.entries()) {
    if (step.type === "variable" && index === 0) {
      if (step.value === "$") path = [];
      else if (step.value !== "") {
        const bound = scope.vars.get(String(step.value));
        if (bound?.type !== "path") return undefined;
        path = [...bound.steps];
        where = bound.where;
        picks.push(...(bound.picks ?? []));
      }
    } else if (step.type === "name" && typeof step.value === "string") {
      path.push(step.value);
    } else {
      return undefined;
    }
    for (const filter of step.stages ?? step.predicate ?? []) {
      const test = filter.expr;
      if (!test) continue;
      if (test.type === "number") {
        path[path.length - 1] += `[${String(test.value)}]`;
        continue;
      }
      path[path.length - 1] += "[]";
      where = text(test, scope);
      picks.push({ test, scope: { ...scope, context: [...path] } });
    }
  }
  if (reach) {
    // The item's test is needed as much as the value it picks: not at all when that value has an alternative.
    const { where: _outer, group, ...rest } = reach;
    const picking = { ...rest, optional: rest.optional || group !== undefined };
    // At the call depth limit: a filter calls no lambda of the profile, so no recursion goes through one.
    for (const pick of picks)
      reads(pick.test, pick.scope, { ...picking, readAs: PICKS }, found, { next: 0 }, MAX_CALL_DEPTH);
  }
  if (path.length === 0) return undefined;
  return { type: "path", steps: path, ...(where ? { where } : {}), ...(picks.length > 0 ? { picks } : {}) };
}

function reads(node: Node, scope: Scope, reach: Reach, found: Found[], groups: { next: number }, depth: number): void {
  if (node.type === "path" || node.type === "variable") {
    const path = resolve(node, scope, found, reach);
    if (path) {
      const where = path.where ?? reach.where;
      found.push({
        path: path.steps.join(".").replaceAll(" →.", " → "),
        reach: { ...reach, ...(where ? { where } : {}) },
      });
      return;
    }
    if (node.type === "variable") return;
  }
  if (node.type === "function" && node.procedure?.type === "variable") {
    call(node, scope, reach, found, groups, depth);
    return;
  }
  if (node.type === "condition") {
    if (node.condition) reads(node.condition, scope, { ...reach, optional: true }, found, groups, depth);
    for (const branch of [node.then, node.else]) {
      if (branch) reads(branch, scope, { ...reach, optional: true }, found, groups, depth);
    }
    return;
  }
  if (node.type === "block" && node.expressions) {
    const inner = bindAll(node.expressions.slice(0, -1), scope);
    const last = node.expressions.at(-1);
    if (last) reads(last, inner, reach, found, groups, depth);
    return;
  }
  if (node.type === "lambda") return;
  if (isArrayConstructor(node) && node.expressions) {
    // A list's later items (`[street, unit]`) are dropped when missing: the record does without them.
    for (const [index, item] of node.expressions.entries()) {
      reads(item, scope, index === 0 ? reach : { ...reach, optional: true }, found, groups, depth);
    }
    return;
  }
  for (const child of children(node)) reads(child, scope, reach, found, groups, depth);
}

/** A call: a helper's arguments are read as it takes them; a lambda of the profile is read with its arguments bound. */
function call(node: Node, scope: Scope, reach: Reach, found: Found[], groups: { next: number }, depth: number): void {
  const name = String(node.procedure?.value);
  const args = node.arguments ?? [];
  const bound = scope.vars.get(name);
  if (bound?.type === "lambda") {
    if (depth >= MAX_CALL_DEPTH) return;
    const vars = new Map(bound.scope.vars);
    for (const [index, parameter] of (bound.node.arguments ?? []).entries()) {
      const argument = args[index];
      const binding = argument ? bindingOf(argument, scope) : undefined;
      if (binding) vars.set(String(parameter.value), binding);
      else vars.delete(String(parameter.value));
      // An argument that is not a path or a literal is read here, where its own paths are.
      if (argument && !binding) reads(argument, scope, reach, found, groups, depth);
    }
    if (bound.node.body)
      reads(bound.node.body, { vars, context: bound.scope.context }, reach, found, groups, depth + 1);
    return;
  }
  if (name === "default" && args.length === 2) {
    // `$default(a, b)`: `a` or, without it, `b`. A literal `b` makes `a` optional; a read `b` makes them alternatives.
    const [value, fallback] = args as [Node, Node];
    const literal = LITERALS.has(fallback.type ?? "") || fallback.type === "unary";
    const group = literal ? reach.group : groups.next++;
    reads(value, scope, { ...reach, optional: reach.optional || literal, group }, found, groups, depth);
    reads(fallback, scope, { ...reach, group }, found, groups, depth);
    return;
  }
  const readAs = HELPER_ARGUMENTS[name];
  for (const [index, argument] of args.entries()) {
    const as = readAs ? (readAs[index] ?? readAs.at(-1)) : reach.readAs;
    // A country or time zone beside the value is the helper's setting: the record can do without it.
    const optional = reach.optional || ((name === "phoneE164" || name === "localToUtc") && index > 0);
    reads(argument, scope, { ...reach, optional, ...(as ? { readAs: as } : {}) }, found, groups, depth);
  }
}

/**
 * One entry per path and filter (a key-value list's answers are one path, told apart by their `where`), described as
 * the first place that reads it; the needs of all its places combined.
 */
function merge(found: Found[], required: ReadonlySet<string>): SourceRead[] {
  const byPath = new Map<string, SourceRead & { groups: Set<number> }>();
  const groupPaths = new Map<number, Set<string>>();
  const label = (path: string, reach: Reach) => (reach.where ? `${path} [${reach.where}]` : path);
  for (const { path, reach } of found) {
    if (reach.group === undefined) continue;
    groupPaths.set(reach.group, (groupPaths.get(reach.group) ?? new Set()).add(label(path, reach)));
  }
  for (const { path, reach } of found) {
    const needed = required.has(reach.field.replace(/^body\./, "")) && !reach.optional;
    const alternatives =
      reach.group === undefined ? [] : [...(groupPaths.get(reach.group) ?? [])].filter((p) => p !== label(path, reach));
    const need: SourceRead["need"] = !needed ? "optional" : alternatives.length > 0 ? "oneOf" : "required";
    const key = `${path}\u0000${reach.where ?? ""}`;
    const known = byPath.get(key);
    if (!known) {
      byPath.set(key, {
        path,
        feeds: [reach.field],
        need,
        groups: new Set(reach.group === undefined ? [] : [reach.group]),
        ...(reach.readAs ? { readAs: reach.readAs } : {}),
        ...(reach.where ? { where: reach.where } : {}),
        ...(alternatives.length > 0 ? { alternatives } : {}),
      });
      continue;
    }
    if (!known.feeds.includes(reach.field)) known.feeds.push(reach.field);
    known.need = stronger(known.need, need);
    if (known.need !== "oneOf") delete known.alternatives;
    else if (alternatives.length > 0)
      known.alternatives = [...new Set([...(known.alternatives ?? []), ...alternatives])];
    known.readAs ??= reach.readAs;
  }
  return [...byPath.values()].map(({ groups: _groups, ...read }) => read);
}

const RANK = { optional: 0, oneOf: 1, required: 2 } as const;
const stronger = (a: SourceRead["need"], b: SourceRead["need"]) => (RANK[a] >= RANK[b] ? a : b);
