export {
  HOOK_BODY_CODES,
  HOOK_BODY_ERRORS,
  type HookBodyCode,
  HookBodyError,
} from "./hook-body-error.js";
export type { JsonValue } from "./json-value.js";
export { HOOK_BODY_LIMITS, type HookBodyLimits } from "./limits.js";
export { type HookBodyType, hookBodyType } from "./media-type.js";
export { parseHookBody, parseHookBodyText } from "./parse-hook-body.js";
