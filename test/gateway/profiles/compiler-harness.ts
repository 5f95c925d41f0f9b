import { compileFast, type FastProgram } from "../../../src/gateway/profiles/compiler/index.js";
import { Bailout } from "../../../src/gateway/profiles/compiler/runtime.js";
import { HELPERS } from "../../../src/gateway/profiles/helpers/index.js";
import { ProfileProgram } from "../../../src/gateway/profiles/program.js";

/**
 * What one evaluation gave, comparable across the interpreter and the compiled path: the value in a canonical text
 * that keeps what JSON loses (undefined, Infinity, and the sequence/cons/keepSingleton flags that steer later
 * flattening), or the error's JSONata code, or — compiled only — a bailout to the interpreter.
 */
export type Result = { value: string } | { error: string } | { bailout: string };

export function canonical(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    const flags = ["sequence", "cons", "keepSingleton", "outerWrapper"].filter(
      (flag) => (value as unknown as Record<string, unknown>)[flag] === true,
    );
    const items = value.map(canonical).join(",");
    return `${flags.length > 0 ? `<${flags.join(" ")}>` : ""}[${items}]`;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value).map(
      (key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`,
    );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

function failure(error: unknown): Result {
  if (error instanceof Bailout) return { bailout: error.message };
  if (typeof error === "object" && error !== null && "code" in error) return { error: String(error.code) };
  return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

/** The interpreter exactly as the evaluator builds it (guardrails, regex engine, helpers), without the compiled path. */
export function interpreterOf(expression: string): (input: unknown) => Promise<Result> {
  const program = new ProfileProgram(expression, { compiler: false });
  return async (input) => {
    try {
      return { value: canonical(await program.evaluate(structuredClone(input), 5_000, performance.now() + 5_000)) };
    } catch (error) {
      return failure(error);
    }
  };
}

/** The compiled program alone (no safety net), or why the expression is outside the subset. */
export function compiledOf(expression: string): FastProgram | string {
  const compilation = compileFast(new ProfileProgram(expression, { compiler: false }).interpreter.ast(), HELPERS);
  return compilation.ok ? compilation.program : compilation.reason;
}

export function runCompiled(program: FastProgram, input: unknown): Result {
  try {
    return { value: canonical(program.evaluate(structuredClone(input), 5_000)) };
  } catch (error) {
    return failure(error);
  }
}
