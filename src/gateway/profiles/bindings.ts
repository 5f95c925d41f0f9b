import { HELPERS } from "./helpers/index.js";
import type { Bindings } from "./types.js";

/** A binding's name as a profile reads it after its `$`: a JSONata variable name, at most 64 characters. */
const BINDING_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Why these bindings cannot be bound beside a payload (docs/profiles.md, "Bindings"), or undefined: a name that is not
 * a plain variable name, or one that would hide a helper the profile calls (`$default` bound to data is no function).
 */
export function bindingsIssue(bindings: Bindings): string | undefined {
  for (const name of Object.keys(bindings)) {
    if (!BINDING_NAME.test(name)) return `binding ${JSON.stringify(name)}: not a variable name`;
    if (Object.hasOwn(HELPERS, name)) return `binding ${name}: the name of a helper function`;
  }
  return undefined;
}
