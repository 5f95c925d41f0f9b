import { LIMITS } from "../limits.js";
import { astNode, nestsDeeperThan, Unsupported } from "./ast.js";
import type { Helpers } from "./calls.js";
import { NodeCompiler } from "./compile-node.js";
import { jsonataMismatch } from "./jsonata-version.js";
import { type Code, checkClock, isSequence, type Run, sequenceOf } from "./runtime.js";
import { Scope } from "./scope.js";

export { INSTALLED_JSONATA, jsonataMismatch, REPRODUCED_JSONATA } from "./jsonata-version.js";
export { Bailout, isTimeout, OverBudget, withinBounds } from "./runtime.js";

/** A profile expression compiled to synchronous JavaScript: same result as JSONata's interpreter, or a throw. */
export interface FastProgram {
  /**
   * Evaluates against a document. Throws a Bailout when the value needs the interpreter, JSONata's D1012 when
   * `timeoutMs` passes, and a `{code}` error wherever the interpreter would fail (whose rerun gives the message).
   */
  evaluate(input: unknown, timeoutMs: number): unknown;
}

export type FastCompilation = { ok: true; program: FastProgram } | { ok: false; reason: string };

/**
 * Far below JSONata's stack guardrail (LIMITS.stackDepth nested evaluations): a compiled expression cannot reach it,
 * and one that might is left to the interpreter, which enforces it.
 */
const MAX_NESTING = Math.floor(LIMITS.stackDepth / 5);

/**
 * Compiles a parsed expression (`jsonata(expression).ast()`) if all of it is in the subset (docs/profiles.md,
 * "Compiled expressions"); otherwise says why not, and the interpreter evaluates it. Only with the JSONata release
 * the subset ports (jsonata-version.ts): with any other, nothing is compiled.
 */
export function compileFast(ast: unknown, helpers: Helpers): FastCompilation {
  const mismatch = jsonataMismatch();
  if (mismatch) return { ok: false, reason: mismatch };
  try {
    if (nestsDeeperThan(ast, MAX_NESTING)) throw new Unsupported("nested too deeply");
    const scope = Scope.root();
    const code = new NodeCompiler(helpers).compile(astNode(ast), scope);
    return { ok: true, program: fastProgram(code, scope.slotCount) };
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    throw error;
  }
}

function fastProgram(code: Code, slotCount: number): FastProgram {
  return {
    evaluate(input, timeoutMs) {
      const run: Run = {
        root: input,
        slots: new Array(slotCount),
        deadline: Date.now() + timeoutMs,
        timeoutMs,
        ticks: 0,
      };
      let context = input;
      // As jsonata's evaluate(): an array document is wrapped in a singleton, so `$` is the document whole.
      if (Array.isArray(input) && !isSequence(input)) {
        const wrapped = sequenceOf(input);
        wrapped.outerWrapper = true;
        context = wrapped;
      }
      const result = code(context, run);
      checkClock(run);
      return result;
    },
  };
}
