import { type AstNode, child, children, Unsupported } from "./ast.js";
import { BUILTINS } from "./builtins.js";
import type { CompileNode } from "./paths.js";
import { Bailout, type Code, chargeChars, checkClock, inlineMaxChars, type Run } from "./runtime.js";
import { type Scope, variableName } from "./scope.js";
import { isFunction, jsonCharsUpTo } from "./values.js";

export type Helpers = Readonly<Record<string, (...args: unknown[]) => unknown>>;

/**
 * `$name(args)`: a lead-domain helper (registered without a signature, so called with the arguments as evaluated) or
 * an exactly ported built-in; never a block variable, a function value or an unknown name. Arguments are evaluated in
 * order, as JSONata's evaluateFunction does; the time limit is read before each call, since a helper may be slow.
 */
export function compileCall(node: AstNode, scope: Scope, compile: CompileNode, helpers: Helpers): Code {
  const procedure = child(node, "procedure");
  if (procedure.type !== "variable" || procedure.predicate || procedure.keepArray) {
    throw new Unsupported("a call of something other than a named function");
  }
  const name = variableName(procedure.value);
  if (scope.resolve(name) !== undefined) throw new Unsupported(`a call of the block variable $${name}`);
  const args = children(node, "arguments").map((argument) => compile(argument, scope));
  const helper = Object.hasOwn(helpers, name) ? helpers[name] : undefined;
  if (helper) {
    return (input, run) => {
      const values = argumentValues(args, input, run);
      checkClock(run);
      if (inlineMaxChars() !== undefined) chargeChars(textIn(values));
      const result = helperResult(helper(...values));
      if (typeof result === "string") chargeChars(result.length);
      return result;
    };
  }
  const builtin = Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
  if (!builtin) throw new Unsupported(`$${name}()`);
  if (!builtin.arities.includes(args.length)) throw new Unsupported(`$${name}() with ${args.length} arguments`);
  return (input, run) => {
    const values = argumentValues(args, input, run);
    checkClock(run);
    return builtin.call(values, input);
  };
}

/**
 * A call's arguments, evaluated in order. JSONata wraps anything that looks like a function (data flagged
 * `_jsonata_function` included) in a closure first, and its built-ins then fail on it; that corner is the
 * interpreter's.
 */
function argumentValues(args: Code[], input: unknown, run: Run): unknown[] {
  const values = new Array<unknown>(args.length);
  for (let i = 0; i < args.length; i++) values[i] = (args[i] as Code)(input, run);
  for (const value of values) if (isFunction(value)) throw new Bailout("a function-like argument");
  return values;
}

/**
 * The text a helper is handed, for an inline run's bounds (the helpers are linear in it). A helper given a list or
 * an object (`$default($$, …)`) is charged for its JSON.
 */
function textIn(values: unknown[]): number {
  let chars = 0;
  for (const value of values) {
    if (typeof value === "string") chars += value.length;
    else if (typeof value === "object" && value !== null) chars += jsonCharsUpTo(value, inlineMaxChars() ?? 0);
  }
  return chars;
}

/** A helper that returned something JSONata would unwrap or await (an iterator, a promise, a function) is not plain. */
function helperResult(result: unknown): unknown {
  if (typeof result === "function" || (typeof result === "object" && result !== null && isUnusual(result))) {
    throw new Bailout("a helper returned a function, promise or iterator");
  }
  return result;
}

function isUnusual(value: object): boolean {
  const probe = value as { then?: unknown; next?: unknown };
  return typeof probe.then === "function" || typeof probe.next === "function" || isFunction(value);
}
