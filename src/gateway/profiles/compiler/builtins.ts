import { Bailout, chargeChars, fail, inlineMaxChars } from "./runtime.js";
import { toBoolean, toText } from "./values.js";

/**
 * The JSONata built-ins the compiled subset calls, each exact for the argument types it accepts (jsonata 2.2.2's
 * functions.js behind its signature check). A type the signature would reject, or that the port does not take,
 * bails out to the interpreter, which then raises JSONata's own T0410/T0411 with its message and position.
 */
export interface Builtin {
  /** Argument counts the subset compiles; a count outside it makes the whole expression fall back. */
  arities: readonly number[];
  /** `args` as evaluated; `context` is the call's input, which a `-` signature uses when the argument is left out. */
  call(args: readonly unknown[], context: unknown): unknown;
}

const unsupported = (what: string): never => {
  throw new Bailout(what);
};

/** A `<s-…>` argument: text or missing; left out, the context if it is text or missing (T0411 otherwise). */
function textArgument(args: readonly unknown[], context: unknown): string | undefined {
  const value = args.length === 0 ? context : args[0];
  if (value === undefined || typeof value === "string") return value;
  return unsupported("a non-string argument to a string function");
}

function textFunction(transform: (text: string) => unknown): Builtin {
  return {
    arities: [0, 1],
    call: (args, context) => {
      const text = textArgument(args, context);
      if (text === undefined) return undefined;
      chargeChars(text.length);
      return transform(text);
    },
  };
}

/** fn.trim: runs of space, tab, CR and LF become one space, then one leading and one trailing space go. */
function trim(text: string): string {
  let result = text.replace(/[ \t\n\r]+/gm, " ");
  if (result.charAt(0) === " ") result = result.substring(1);
  if (result.charAt(result.length - 1) === " ") result = result.substring(0, result.length - 1);
  return result;
}

/** fn.substring, by code point (utils.stringToArray). */
function substring(text: string, from: number, length: number | undefined): string {
  const chars = [...text];
  let start = from;
  if (chars.length + start < 0) start = 0;
  if (length !== undefined) {
    if (length <= 0) return "";
    const end = start >= 0 ? start + length : chars.length + start + length;
    return chars.slice(start, end).join("");
  }
  return chars.slice(start).join("");
}

/** fn.number for what `<(nsb)-:n>` admits. */
function toNumber(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number") return value;
  if (
    typeof value === "string" &&
    /^-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?$/.test(value) &&
    !Number.isNaN(Number.parseFloat(value)) &&
    Number.isFinite(Number(value))
  ) {
    return Number.parseFloat(value);
  }
  if (typeof value === "string" && /^(0[xX][0-9A-Fa-f]+)|(0[oO][0-7]+)|(0[bB][0-1]+)$/.test(value)) {
    return Number(value);
  }
  if (value === true) return 1;
  if (value === false) return 0;
  if (typeof value === "string") throw fail("D3030", value);
  return unsupported("$number of a value its signature rejects");
}

/** fn.join behind `<a<s>s?:s>`: a string counts as a list of one; every item must be a string (T0412). */
function join(list: unknown, separator: unknown): string | undefined {
  if (separator !== undefined && typeof separator !== "string") return unsupported("a non-string separator");
  if (list === undefined) return undefined;
  const items = typeof list === "string" ? [list] : list;
  if (!Array.isArray(items) || items.some((item) => typeof item !== "string")) {
    return unsupported("$join of something other than strings");
  }
  if (inlineMaxChars() !== undefined) {
    // Measured before it is built: a long separator between many items is where joining amplifies.
    let length = (items.length - 1) * (separator?.length ?? 0);
    for (const item of items) length += (item as string).length;
    chargeChars(length);
  }
  return items.join(separator ?? "");
}

export const BUILTINS: Readonly<Record<string, Builtin>> = {
  string: { arities: [0, 1], call: (args, context) => toText(args.length === 0 ? context : args[0]) },
  number: {
    arities: [0, 1],
    call: (args, context) => {
      const value = args.length === 0 ? context : args[0];
      const admitted = value === undefined || ["number", "string", "boolean"].includes(typeof value);
      return admitted ? toNumber(value) : unsupported("$number of a value its signature rejects");
    },
  },
  boolean: { arities: [0, 1], call: (args, context) => toBoolean(args.length === 0 ? context : args[0]) },
  not: {
    arities: [0, 1],
    call: (args, context) => {
      const value = args.length === 0 ? context : args[0];
      return value === undefined ? undefined : !toBoolean(value);
    },
  },
  exists: { arities: [1], call: (args) => args[0] !== undefined },
  count: {
    arities: [1],
    call: ([value]) => (Array.isArray(value) ? value.length : value === undefined ? 0 : 1),
  },
  join: { arities: [1, 2], call: ([list, separator]) => join(list, separator) },
  uppercase: textFunction((text) => text.toUpperCase()),
  lowercase: textFunction((text) => text.toLowerCase()),
  trim: textFunction(trim),
  length: textFunction((text) => [...text].length),
  substring: {
    arities: [2, 3],
    call: ([text, start, length]) => {
      if (text !== undefined && typeof text !== "string") return unsupported("$substring of a non-string");
      if (typeof start !== "number") return unsupported("$substring without a numeric start");
      if (length !== undefined && typeof length !== "number")
        return unsupported("$substring with a non-numeric length");
      if (text === undefined) return undefined;
      chargeChars(text.length);
      return substring(text, start, length);
    },
  },
  contains: {
    arities: [2],
    call: ([text, token]) => {
      if (text !== undefined && typeof text !== "string") return unsupported("$contains of a non-string");
      if (token !== undefined && typeof token !== "string") return unsupported("$contains with a pattern");
      if (text === undefined || token === undefined) return undefined;
      chargeChars(text.length);
      return text.indexOf(token) !== -1;
    },
  },
};
