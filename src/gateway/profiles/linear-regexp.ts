import { RE2JS } from "re2js";
import { LIMITS } from "./limits.js";
import type { GuardrailLimit } from "./types.js";

/**
 * When the running evaluation's time is up (performance.now() clock), set by the evaluator before each evaluation:
 * JSONata checks its timeout only between evaluation steps, and `$replace` over many matches is one step.
 */
let budgetEndsAt = Number.POSITIVE_INFINITY;

export function setRegexBudget(endsAt: number): void {
  budgetEndsAt = endsAt;
}

/**
 * JSONata's `RegexEngine` option: every regular expression in a profile runs on re2js, a linear-time (RE2) engine, so
 * no pattern can backtrack catastrophically (`/(a+)+$/` on a long string). JSONata's own timeout is only checked
 * between evaluation steps and never interrupts a native `RegExp` mid-match, which is why the engine is replaced
 * rather than guarded. RE2 has no backreferences or lookarounds; such patterns are refused at compile time.
 *
 * JSONata parses `/…/flags` into a native RegExp, then calls `new RegexEngine(thatRegExp)` and drives it the way it
 * drives a global RegExp: set `lastIndex`, call `exec`, read `index` and groups, continue from `lastIndex`.
 */
export class LinearRegExp {
  readonly source: string;
  readonly flags: string;
  lastIndex = 0;
  private readonly pattern: RE2JS;
  /** One matcher per input string: `$replace` on a long string calls exec once per match, and a new matcher is O(n). */
  private input: string | undefined;
  private matcher: ReturnType<RE2JS["matcher"]> | undefined;

  constructor(native: RegExp | string) {
    this.source = typeof native === "string" ? native : native.source;
    this.flags = typeof native === "string" ? "g" : native.flags;
    this.pattern = compileLinear(this.source, this.flags);
  }

  exec(input: string): LinearMatch | null {
    if (input.length > LIMITS.regexInputChars) {
      throw new RegexGuardrailError(
        "regex",
        `regular expressions run on strings of at most ${LIMITS.regexInputChars} characters (got ${input.length})`,
      );
    }
    if (performance.now() > budgetEndsAt) {
      throw new RegexGuardrailError("time", "evaluation timed out while matching a regular expression");
    }
    if (this.input !== input || !this.matcher) {
      this.input = input;
      this.matcher = this.pattern.matcher(input);
    }
    const matcher = this.matcher;
    if (this.lastIndex > input.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: (string | undefined)[] = [];
    for (let g = 0; g <= matcher.groupCount(); g++) groups.push(matcher.group(g) ?? undefined);
    this.lastIndex = matcher.end();
    return Object.assign(groups, { index: matcher.start() });
  }
}

/** What JSONata reads from `exec`: the match and its groups by number (unmatched groups undefined), and `index`. */
export type LinearMatch = (string | undefined)[] & { index: number };

/** A regex stopped by a guardrail: its time ran out, or its input is longer than any lead field has reason to be. */
export class RegexGuardrailError extends Error {
  override name = "RegexGuardrailError";
  constructor(
    readonly limit: GuardrailLimit,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown when a pattern uses a feature RE2 cannot run in linear time (backreference, lookahead, lookbehind…). */
export class UnsupportedRegexError extends Error {
  override name = "UnsupportedRegexError";
  readonly code = "regex-unsupported";
}

export function compileLinear(source: string, flags = ""): RE2JS {
  let re2Flags = 0;
  if (flags.includes("i")) re2Flags |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) re2Flags |= RE2JS.MULTILINE;
  try {
    return RE2JS.compile(RE2JS.translateRegExp(source), re2Flags);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UnsupportedRegexError(
      `regular expression /${source}/ is not supported by the linear-time regex engine (${reason}); ` +
        "backreferences and lookarounds are not available",
    );
  }
}
