/** The parts of JSONata's AST the posting docs read (the published ExprNode types them as `any`). */
export interface Node {
  type?: string;
  value?: unknown;
  steps?: Node[];
  /** A path step's filters (`phones[type = "mobile"]`); a standalone variable's are its `predicate`. */
  stages?: Node[];
  predicate?: Node[];
  expr?: Node;
  /** A unary minus's operand. */
  expression?: Node;
  lhs?: Node | Node[][];
  rhs?: Node;
  expressions?: Node[];
  arguments?: Node[];
  procedure?: Node;
  body?: Node;
  condition?: Node;
  then?: Node;
  else?: Node;
}

export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export const isObjectConstructor = (node: Node) => node.type === "unary" && node.value === "{";
export const isArrayConstructor = (node: Node) => node.type === "unary" && node.value === "[";
export const LITERALS = new Set(["string", "number", "value", "regex"]);

/** Every child node, for the walk of what the posting docs do not read specially. */
export function children(node: Node): Node[] {
  const found: Node[] = [];
  const add = (value: unknown) => {
    if (Array.isArray(value)) for (const item of value) add(item);
    else if (isNode(value)) found.push(value);
  };
  for (const key of ["steps", "stages", "predicate", "expr", "expression", "lhs", "rhs", "expressions", "arguments"]) {
    add((node as Record<string, unknown>)[key]);
  }
  add(node.condition);
  add(node.then);
  add(node.else);
  return found;
}

/**
 * A short text of an expression for a vendor to read (a filter, `type = "mobile"`): names, literals, operators and
 * calls; `literal` gives the text a variable stands for (a lambda's argument), and anything else is `…`.
 */
export function expressionText(node: Node, literal: (name: string) => string | undefined): string {
  switch (node.type) {
    case "string":
      return JSON.stringify(node.value);
    case "number":
    case "value":
      return JSON.stringify(node.value);
    case "path":
      return (node.steps ?? []).map((step) => expressionText(step, literal)).join(".");
    case "name":
      return String(node.value);
    case "variable":
      return literal(String(node.value)) ?? `$${String(node.value)}`;
    case "binary":
      return `${expressionText(node.lhs as Node, literal)} ${String(node.value)} ${expressionText(node.rhs ?? {}, literal)}`;
    case "function":
      return `$${String(node.procedure?.value)}(${(node.arguments ?? []).map((a) => expressionText(a, literal)).join(", ")})`;
    case "unary":
      if (isArrayConstructor(node))
        return `[${(node.expressions ?? []).map((e) => expressionText(e, literal)).join(", ")}]`;
      return node.value === "-" ? `-${expressionText(node.expression ?? {}, literal)}` : "…";
    default:
      return "…";
  }
}
