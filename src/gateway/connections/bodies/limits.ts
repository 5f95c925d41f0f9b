import { MAX_BODY_BYTES } from "../../../http/json-body.js";
import { MAX_JSON_DEPTH } from "../../../http/json-depth.js";

/** What one hook body may bring (docs/connections.md, "Bodies"; docs/decisions.md, D-283). */
export interface HookBodyLimits {
  /** The raw body's bytes: §8's 1 MB, as intake. */
  maxBytes: number;
  /** Nesting of arrays and objects in the tree: intake's 64 (D-164), so no walk meets a deeper hook payload. */
  maxDepth: number;
  /** Form and multipart fields, XML elements and attributes: PHP's `max_input_vars` and body-parser's default. */
  maxFields: number;
}

export const HOOK_BODY_LIMITS: Readonly<HookBodyLimits> = {
  maxBytes: MAX_BODY_BYTES,
  maxDepth: MAX_JSON_DEPTH,
  maxFields: 1_000,
};
