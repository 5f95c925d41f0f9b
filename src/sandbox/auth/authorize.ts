import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../http/errors.js";
import type { KeyKind, Scope } from "../db/schema/index.js";
import type { SandboxEnv } from "../env.js";
import { callerOf } from "../env.js";

/**
 * §5.3: each surface accepts only its own key kinds — a key of the wrong kind is 401. §5.4: a key lacking the
 * operation's scope is 403 and the message names the scope.
 */
export function authorize(kind: KeyKind, scope: Scope): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const caller = callerOf(c);
    if (caller.kind !== kind) {
      throw new ApiError("unauthorized", `this endpoint accepts ${kind} keys only`);
    }
    if (!caller.scopes.includes(scope)) {
      throw new ApiError("forbidden", `key lacks the scope ${scope}`, { details: { scope } });
    }
    await next();
  };
}
