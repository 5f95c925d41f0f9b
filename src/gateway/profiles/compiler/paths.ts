import { type AstNode, children, type Filter, Unsupported } from "./ast.js";
import {
  type Code,
  chargeNode,
  isSequence,
  push,
  type Run,
  type Sequence,
  sequence,
  sequenceOf,
  tick,
} from "./runtime.js";
import type { Scope } from "./scope.js";
import { isArrayOfNumbers, isNumeric, lookup, toBoolean } from "./values.js";

/** Compiles one node (with evaluate()'s predicates and unwrapping) in a scope. */
export type CompileNode = (node: AstNode, scope: Scope) => Code;

/** A filter applied to a value: JSONata's evaluateFilter, returning the filtered sequence (or an item array). */
export type FilterCode = (input: unknown, run: Run) => unknown;

/**
 * `[predicate]`: a number literal picks one item (negative counts from the end); any other expression is evaluated
 * per item and keeps the item when it is truthy, or when it is a number (or list of numbers) naming that item's index.
 */
export function compileFilter(filter: Filter, scope: Scope, compile: CompileNode): FilterCode {
  const predicate = filter.expr;
  if (predicate.type === "number") {
    if (typeof predicate.value !== "number") throw new Unsupported("a number literal without a number");
    const literal = Math.floor(predicate.value);
    return (input) => {
      const items = Array.isArray(input) ? input : sequenceOf(input);
      const index = literal < 0 ? items.length + literal : literal;
      const item = items[index];
      if (item === undefined) return sequence();
      if (Array.isArray(item)) return item;
      const results = sequence();
      push(results, item);
      return results;
    };
  }
  const test = compile(predicate, scope);
  return (input, run) => {
    const results = sequence();
    const items = Array.isArray(input) ? input : sequenceOf(input);
    for (let index = 0; index < items.length; index++) {
      tick(run);
      const item = items[index];
      let verdict = test(item, run);
      if (isNumeric(verdict)) verdict = [verdict];
      if (isArrayOfNumbers(verdict)) {
        for (const wanted of verdict as number[]) {
          let position = Math.floor(wanted);
          if (position < 0) position = items.length + position;
          if (position === index) push(results, item);
        }
      } else if (toBoolean(verdict)) {
        push(results, item);
      }
    }
    return results;
  };
}

interface Step {
  code: Code;
  stages: FilterCode[];
}

/**
 * A location path (JSONata's evaluatePath and evaluateStep): each step is evaluated against every item of the
 * previous step's result, its stages filter each item's result, and the results are flattened one level into the
 * next sequence — except arrays built by a constructor, and a single array reached by the last step, which are kept
 * whole.
 */
export function compilePath(node: AstNode, scope: Scope, compile: CompileNode): Code {
  const nodes = children(node, "steps");
  const first = nodes[0];
  if (first === undefined) throw new Unsupported("an empty path");
  const startsWithVariable = first.type === "variable";
  // JSONata evaluates a leading array constructor once, against the whole input sequence.
  const startsWithConstructor = first.consarray === true;
  // Only a plain array constructor: its result is then always an array (a predicate on it could unwrap to a string,
  // whose characters JSONata would then iterate).
  const plainConstructor = first.type === "unary" && first.value === "[" && !first.stages && !first.predicate;
  if (startsWithConstructor && !plainConstructor) throw new Unsupported("a path starting with a filtered array");
  const steps: Step[] = nodes.map((step) => ({
    code: compile(step, scope),
    stages: (step.stages ?? []).map((filter) => compileFilter(filter, scope, compile)),
  }));
  const keepSingletonArray = node.keepSingletonArray === true;
  const last = steps.length - 1;

  const general: Code = (input, run) => {
    let items: unknown[] = Array.isArray(input) && !startsWithVariable ? input : sequenceOf(input);
    let result: unknown[] = items;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i] as Step;
      if (i === 0 && startsWithConstructor) result = step.code(items, run) as unknown[];
      else result = evaluateStep(step, items, run, i === last);
      if (result.length === 0) break;
      items = result;
    }
    if (keepSingletonArray) {
      let kept = result as Sequence;
      if (kept.cons && !kept.sequence) kept = sequenceOf(kept);
      kept.keepSingleton = true;
      return kept;
    }
    return result;
  };
  const names = fieldNames(node, nodes);
  return names ? namePath(names, startsWithVariable ? steps[0]?.code : undefined, general) : general;
}

/**
 * The field names of a path that is nothing but field names (after an optional leading variable): no filters, no
 * `[]`, no predicate on the path itself. Such a path is what most of a mapping reads (`contact.name.first`,
 * `$address.city`), and it has a cheaper evaluation while no step meets an array.
 */
function fieldNames(node: AstNode, nodes: AstNode[]): string[] | undefined {
  if (node.predicate || node.keepArray || node.keepSingletonArray) return undefined;
  const names: string[] = [];
  for (const [i, step] of nodes.entries()) {
    if (step.predicate || step.stages || step.keepArray) return undefined;
    if (i === 0 && step.type === "variable") continue;
    if (step.type !== "name" || typeof step.value !== "string") return undefined;
    names.push(step.value);
  }
  return names.length > 0 ? names : undefined;
}

/**
 * A field-name path over objects: each step is a lookup, with none of the sequences the general evaluation builds to
 * flatten arrays. The result is what the general evaluation gives once evaluate() has unwrapped it: the last value, an
 * array reached by the last step whole, undefined where a field is missing. Any step that meets an array hands the
 * whole path to the general evaluation (lookups have no side effects, so running it again from the start is exact).
 */
function namePath(names: string[], variable: Code | undefined, general: Code): Code {
  return (input, run) => {
    let value: unknown;
    if (variable) value = variable(input, run);
    else if (Array.isArray(input)) return general(input, run);
    else value = input;
    for (const name of names) {
      if (Array.isArray(value)) return general(input, run);
      // As the general evaluation charges a step: the name node's evaluation, and one item through the path.
      chargeNode();
      tick(run);
      value = lookup(value, name, run);
      if (value === undefined) return undefined;
    }
    return value;
  };
}

function evaluateStep(step: Step, items: unknown[], run: Run, lastStep: boolean): unknown[] {
  const results = sequence();
  for (const item of items) {
    tick(run);
    let value = step.code(item, run);
    for (const stage of step.stages) value = stage(value, run);
    if (value !== undefined) push(results, value);
  }
  const only = results[0];
  if (lastStep && results.length === 1 && Array.isArray(only) && !isSequence(only)) return only;
  const flattened = sequence();
  for (const value of results) {
    if (!Array.isArray(value) || (value as Sequence).cons) push(flattened, value);
    else for (const member of value) push(flattened, member);
  }
  return flattened;
}
