// A JSON import, not a read at run time: the evaluator is bundled and may read nothing but its own code (evaluator-entry.ts).
import jsonataPackage from "jsonata/package.json" with { type: "json" };

/**
 * The JSONata release the compiled path ports line for line (its processed AST, operators and built-ins). package.json
 * pins exactly this version; a test fails when another is installed (test/gateway/profiles/jsonata-pin.test.ts).
 */
export const REPRODUCED_JSONATA = "2.2.2";

/** The version of the `jsonata` package this process loads. */
export const INSTALLED_JSONATA: string = jsonataPackage.version;

/**
 * Why the compiled path cannot run with `installed`, or undefined when it can: another JSONata may parse, sequence or
 * coerce differently, so with it every expression is left to the interpreter (which is JSONata itself).
 */
export function jsonataMismatch(installed: string = INSTALLED_JSONATA): string | undefined {
  return installed === REPRODUCED_JSONATA
    ? undefined
    : `jsonata ${installed} is installed; the compiled path reproduces ${REPRODUCED_JSONATA}`;
}
