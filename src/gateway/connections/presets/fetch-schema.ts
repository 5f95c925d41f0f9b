import { z } from "zod";
import { headerName, jsonataText, secretName } from "./names.js";

/**
 * preset.json "fetch" (hooks contract, "Fetch"): a notification names records, which are then read from the vendor's
 * API and mapped instead of the notification. Validated here in full: it becomes a request the gateway makes with a
 * connection's credentials, so nothing a vendor sends may choose where it goes (docs/decisions.md, D-304).
 */

/** `{name}` in the URL, filled (URL-encoded) from each id, or from the keys of an id that is an object. */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;

/**
 * The template names at least one placeholder, has no other brace, and with its placeholders filled is an https URL
 * with no credentials whose host is written out before the first placeholder: a value from the payload can choose a
 * path and a query, never a host.
 */
export function urlTemplateIssue(template: string): string | undefined {
  const placeholders = [...template.matchAll(PLACEHOLDER)];
  if (placeholders.length === 0) return "must name the record with a {placeholder}, e.g. {id}";
  if (/[{}]/.test(template.replace(PLACEHOLDER, ""))) return "has a brace that is not a {name} placeholder";
  const filled = template.replace(PLACEHOLDER, "x");
  if (!URL.canParse(filled)) return "is not a URL once its placeholders are filled";
  const url = new URL(filled);
  if (url.protocol !== "https:") return "must be an https URL";
  if (url.username !== "" || url.password !== "") return "must not carry credentials: the auth declaration does";
  const head = template.slice(0, placeholders[0]?.index ?? 0);
  if (!/^https:\/\/[^/?#]+[/?]/i.test(head)) return "must write out its host before the first placeholder";
  return undefined;
}

const auth = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("bearer"), secret: secretName }),
    z.strictObject({ type: z.literal("basic"), username: secretName, password: secretName }),
    z.strictObject({ type: z.literal("query"), param: z.string().min(1).max(100), secret: secretName }),
    z.strictObject({
      type: z.literal("header"),
      name: headerName,
      secret: secretName,
      prefix: z.string().min(1).max(40).optional(),
    }),
  ],
  { message: "must be an auth of type bearer, basic, query or header" },
);

export type FetchAuth = z.infer<typeof auth>;

/** Headers the fetch sets itself: the credentials (auth), what it takes (accept), and what the HTTP client owns. */
const RESERVED_HEADERS = new Set(["authorization", "accept", "host", "content-length", "transfer-encoding", "cookie"]);

/** A header value sent as written: visible ASCII and spaces, never a line break. */
const headerValue = z.string().regex(/^[\x20-\x7e]{1,1000}$/, "must be printable ASCII on one line");

export const fetchSchema = z.strictObject({
  ids: jsonataText,
  url: z
    .string()
    .min(1)
    .max(2_000)
    .superRefine((template, issues) => {
      const issue = urlTemplateIssue(template);
      if (issue) issues.addIssue({ code: "custom", message: issue });
    }),
  auth,
  /**
   * Fixed headers a vendor's API requires beside the credentials (LinkedIn's `LinkedIn-Version` and
   * `X-Restli-Protocol-Version`): a documented need the contract's sketch did not show.
   */
  headers: z
    .record(headerName, headerValue)
    .refine((headers) => Object.keys(headers).length <= 20, { message: "must have at most 20 headers" })
    .refine((headers) => Object.keys(headers).every((name) => !RESERVED_HEADERS.has(name.toLowerCase())), {
      message: "must not set Authorization, Accept, Host, Content-Length, Transfer-Encoding or Cookie",
    })
    .optional(),
  /** The profile maps the fetched record as JSON (the hooks contract), so the API is asked for JSON. */
  accept: z.string().regex(/^application\/(?:[\w.-]+\+)?json$/i, "must be a JSON media type (application/json)"),
  /** Calls per minute to the vendor's API; the gateway's whole egress is 600 a minute (§8). */
  perMinute: z.number().int().min(1).max(600),
});

export type FetchDeclaration = z.infer<typeof fetchSchema>;

/** The secret names a fetch uses (its auth), to check that the preset declares each. */
export function fetchSecretNames(fetch: FetchDeclaration): { path: string[]; name: string }[] {
  const { auth } = fetch;
  if (auth.type === "basic") {
    return [
      { path: ["fetch", "auth", "username"], name: auth.username },
      { path: ["fetch", "auth", "password"], name: auth.password },
    ];
  }
  return [{ path: ["fetch", "auth", "secret"], name: auth.secret }];
}
