/**
 * The closed list of refusals of a hook's body (docs/connections.md, "Bodies"; docs/decisions.md, D-284). Each code has
 * one status and one meaning; a code is never renamed or re-meant, since the hook route and the owner's view of a
 * refused hook switch on it. Every one is the vendor's doing: none is a 5xx.
 */
export const HOOK_BODY_ERRORS = {
  unsupported_media_type: {
    status: 415,
    meaning: "The content type is missing, unparseable, or none of JSON, form-urlencoded, multipart/form-data, XML.",
  },
  unsupported_charset: {
    status: 415,
    meaning: "A form or XML body declares a charset (or an XML encoding) other than UTF-8 or US-ASCII.",
  },
  body_too_large: { status: 413, meaning: "The body is over the byte limit (§8: 1 MB)." },
  too_many_fields: {
    status: 413,
    meaning: "More fields than the limit: form or multipart fields, or XML elements and attributes.",
  },
  too_deep: { status: 400, meaning: "The tree would nest arrays and objects deeper than the limit (64, as intake)." },
  malformed_body: {
    status: 400,
    meaning:
      "The body does not parse as its content type says: not UTF-8, not JSON, not well-formed XML, a broken form.",
  },
  file_part_refused: {
    status: 415,
    meaning: "A multipart body carries a file part (a filename, or application/octet-stream).",
  },
  xml_dtd_refused: {
    status: 400,
    meaning: "An XML body has a DOCTYPE, a markup declaration, or an entity reference other than XML's five.",
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type HookBodyCode = keyof typeof HOOK_BODY_ERRORS;

export const HOOK_BODY_CODES = Object.keys(HOOK_BODY_ERRORS) as [HookBodyCode, ...HookBodyCode[]];

/** A refused hook body: the only error parseHookBody() throws. */
export class HookBodyError extends Error {
  override name = "HookBodyError";
  readonly code: HookBodyCode;
  /** Additive fields for the answer's body, e.g. `{maxDepth: 64}`. */
  readonly details: Record<string, unknown>;

  constructor(
    code: HookBodyCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }

  get status(): (typeof HOOK_BODY_ERRORS)[HookBodyCode]["status"] {
    return HOOK_BODY_ERRORS[this.code].status;
  }
}

export const malformed = (message: string, cause?: unknown) => new HookBodyError("malformed_body", message, { cause });

export const tooDeep = (maxDepth: number) =>
  new HookBodyError("too_deep", `the body nests arrays and objects deeper than ${maxDepth} levels`, {
    details: { maxDepth },
  });

export const tooManyFields = (maxFields: number) =>
  new HookBodyError("too_many_fields", `the body has more than ${maxFields} fields`, { details: { maxFields } });
