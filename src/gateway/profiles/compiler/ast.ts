/**
 * The parts of JSONata's processed AST (`jsonata(expr).ast()`, jsonata 2.2.2) the compiled subset reads. Every node
 * is checked against a list of the properties the subset understands: a property outside it (`group`, `tuple`,
 * `focus`, `index`, `ancestor`, `seekingParent`, `thunk`, …) means a construct the subset does not have, and the
 * whole expression falls back to the interpreter.
 */
export interface AstNode {
  type: string;
  value?: unknown;
  position?: number;
  steps?: AstNode[];
  expressions?: AstNode[];
  arguments?: AstNode[];
  procedure?: AstNode;
  lhs?: AstNode | [AstNode, AstNode][];
  rhs?: AstNode;
  expression?: AstNode;
  condition?: AstNode;
  then?: AstNode;
  else?: AstNode;
  /** Filters applied by evaluate() to this node's result. */
  predicate?: Filter[];
  /** Filters applied by a path to this step's result for each input item. */
  stages?: Filter[];
  keepArray?: boolean;
  keepSingletonArray?: boolean;
  consarray?: boolean;
}

export interface Filter {
  type: string;
  expr: AstNode;
}

/** Thrown while compiling: the expression is outside the subset, so none of it is compiled. */
export class Unsupported extends Error {
  override name = "Unsupported";
}

const NODE_KEYS = new Set([
  "type",
  "value",
  "position",
  "steps",
  "expressions",
  "arguments",
  "procedure",
  "lhs",
  "rhs",
  "expression",
  "condition",
  "then",
  "else",
  "predicate",
  "stages",
  "keepArray",
  "keepSingletonArray",
  "consarray",
  "name",
]);

/** `value` as a checked AstNode. */
export function astNode(value: unknown): AstNode {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Unsupported("not an AST node");
  const record = value as Record<string, unknown>;
  if (typeof record.type !== "string") throw new Unsupported("an AST node without a type");
  for (const key of Object.keys(record)) {
    if (!NODE_KEYS.has(key)) throw new Unsupported(`${record.type} node with ${key}`);
  }
  for (const list of [record.predicate, record.stages]) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new Unsupported("malformed filters");
    for (const filter of list as Filter[]) {
      if (filter.type !== "filter" || Object.keys(filter).some((k) => !["type", "expr", "position"].includes(k))) {
        throw new Unsupported(`a ${String(filter.type)} stage`);
      }
    }
  }
  return value as AstNode;
}

export function child(node: AstNode, key: "procedure" | "rhs" | "expression" | "condition" | "then"): AstNode {
  const value = node[key];
  if (value === undefined) throw new Unsupported(`${node.type} node without ${key}`);
  return astNode(value);
}

export function children(node: AstNode, key: "steps" | "expressions" | "arguments"): AstNode[] {
  const value = node[key];
  if (!Array.isArray(value)) throw new Unsupported(`${node.type} node without ${key}`);
  return value.map(astNode);
}

/** An object constructor's key/value pairs. */
export function pairs(node: AstNode): [AstNode, AstNode][] {
  const value = node.lhs;
  if (!Array.isArray(value)) throw new Unsupported("object constructor without pairs");
  return value.map((pair) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new Unsupported("malformed object pair");
    return [astNode(pair[0]), astNode(pair[1])];
  });
}

/**
 * Whether nodes nest deeper than `limit`. JSONata's stack guardrail counts nested evaluate() calls, which follow the
 * AST's nesting when there are no lambdas; an expression anywhere near it is left to the interpreter. Stops
 * descending at the limit, so a pathological AST cannot overflow the stack here either.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const isNode = !Array.isArray(value);
  const remaining = isNode ? limit - 1 : limit;
  if (remaining < 0) return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    if (nestsDeeperThan(item, remaining)) return true;
  }
  return false;
}
