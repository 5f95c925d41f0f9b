import { type AstNode, astNode, child, children, Unsupported } from "./ast.js";
import { compileCall, type Helpers } from "./calls.js";
import { compileArray, compileObject } from "./constructors.js";
import { arithmetic, comparison, concat, equality, includes, negate } from "./operators.js";
import { compileFilter, compilePath } from "./paths.js";
import { type Code, charged, chargeNode, type Sequence, settle } from "./runtime.js";
import { type Scope, variableName } from "./scope.js";
import { boolize, lookup, toBoolean } from "./values.js";

/**
 * Node types whose own result is never a sequence (literals, operators, constructors), so evaluate()'s unwrapping
 * has nothing to do for them.
 */
const PLAIN_RESULTS = new Set(["string", "number", "value", "binary", "unary"]);

/**
 * Compiles JSONata's processed AST into synchronous closures, one per node, each doing what the interpreter's
 * evaluate() does for it: the node's own evaluation, then its predicates, then unwrapping a sequence of one. Anything
 * outside the subset throws Unsupported, and the caller compiles nothing.
 */
export class NodeCompiler {
  constructor(private readonly helpers: Helpers) {}

  /** A node's code, charged to an inline run (runtime.ts) each time it is evaluated. */
  readonly compile = (node: AstNode, scope: Scope): Code => {
    const body = this.body(node, scope);
    const filters = (node.predicate ?? []).map((filter) => compileFilter(filter, scope, this.compile));
    const keepArray = node.keepArray === true;
    if (filters.length === 0 && PLAIN_RESULTS.has(node.type)) return charged(body);
    if (filters.length === 0) {
      return (input, run) => {
        chargeNode();
        return settle(body(input, run), keepArray);
      };
    }
    return (input, run) => {
      chargeNode();
      let result = body(input, run);
      for (const filter of filters) result = filter(result, run);
      return settle(result, keepArray);
    };
  };

  private body(node: AstNode, scope: Scope): Code {
    switch (node.type) {
      case "path":
        return compilePath(node, scope, this.compile);
      case "name":
        return this.name(node);
      case "string":
      case "number":
      case "value":
        return this.literal(node);
      case "variable":
        return this.variable(node, scope);
      case "binary":
        return this.binary(node, scope);
      case "unary":
        return this.unary(node, scope);
      case "condition":
        return this.condition(node, scope);
      case "block":
        return this.block(node, scope);
      case "function":
        return compileCall(node, scope, this.compile, this.helpers);
      default:
        throw new Unsupported(`${node.type} expressions`);
    }
  }

  private name(node: AstNode): Code {
    const key = node.value;
    if (typeof key !== "string") throw new Unsupported("a field name that is not a string");
    return (input, run) => lookup(input, key, run);
  }

  private literal(node: AstNode): Code {
    const value = node.value;
    const ok =
      (node.type === "string" && typeof value === "string") ||
      (node.type === "number" && typeof value === "number") ||
      (node.type === "value" && (value === true || value === false || value === null));
    if (!ok) throw new Unsupported(`a ${node.type} literal of another type`);
    return () => value;
  }

  private variable(node: AstNode, scope: Scope): Code {
    const name = variableName(node.value);
    if (name === "") return (input) => ((input as Sequence | undefined)?.outerWrapper ? (input as Sequence)[0] : input);
    const slot = scope.resolve(name);
    if (slot !== undefined) return (_input, run) => run.slots[slot];
    if (name === "$") return (_input, run) => run.root;
    throw new Unsupported(`$${name}, which no block binds`);
  }

  private binary(node: AstNode, scope: Scope): Code {
    const lhs = this.compile(astNode(node.lhs), scope);
    const rhs = this.compile(child(node, "rhs"), scope);
    switch (node.value) {
      case "+":
      case "-":
      case "*":
      case "/":
      case "%": {
        const op = node.value;
        return (input, run) => arithmetic(lhs(input, run), rhs(input, run), op);
      }
      case "=":
        return (input, run) => equality(lhs(input, run), rhs(input, run), false);
      case "!=":
        return (input, run) => equality(lhs(input, run), rhs(input, run), true);
      case "<":
      case "<=":
      case ">":
      case ">=": {
        const op = node.value;
        return (input, run) => comparison(lhs(input, run), rhs(input, run), op);
      }
      case "&":
        return (input, run) => concat(lhs(input, run), rhs(input, run));
      case "in":
        return (input, run) => includes(lhs(input, run), rhs(input, run));
      case "and":
        return (input, run) => boolize(lhs(input, run)) && boolize(rhs(input, run));
      case "or":
        return (input, run) => boolize(lhs(input, run)) || boolize(rhs(input, run));
      default:
        throw new Unsupported(`the ${String(node.value)} operator`);
    }
  }

  private unary(node: AstNode, scope: Scope): Code {
    if (node.value === "-") {
      const operand = this.compile(child(node, "expression"), scope);
      return (input, run) => negate(operand(input, run));
    }
    if (node.value === "[") return compileArray(node, scope, this.compile);
    if (node.value === "{") return compileObject(node, scope, this.compile);
    throw new Unsupported(`unary ${String(node.value)}`);
  }

  private condition(node: AstNode, scope: Scope): Code {
    const test = this.compile(child(node, "condition"), scope);
    const then = this.compile(child(node, "then"), scope);
    const otherwise = node.else === undefined ? undefined : this.compile(astNode(node.else), scope);
    return (input, run) => (toBoolean(test(input, run)) ? then(input, run) : otherwise?.(input, run));
  }

  /** `( a; $x := b; c )`: statements in order in a new frame; the last one's value. */
  private block(node: AstNode, outer: Scope): Code {
    const scope = outer.nested();
    const statements = children(node, "expressions").map((statement) => this.statement(statement, scope));
    return (input, run) => {
      let result: unknown;
      for (const statement of statements) result = statement(input, run);
      return result;
    };
  }

  private statement(node: AstNode, scope: Scope): Code {
    if (node.type !== "bind") return this.compile(node, scope);
    const target = astNode(node.lhs);
    if (target.type !== "variable" || node.predicate || node.keepArray) throw new Unsupported("an unusual binding");
    const value = this.compile(child(node, "rhs"), scope);
    const slot = scope.bind(variableName(target.value));
    return (input, run) => {
      const result = value(input, run);
      run.slots[slot] = result;
      return settle(result, false);
    };
  }
}
