/** Fetch `Headers`, or Node's `IncomingHttpHeaders` (or any plain object; names are matched case-insensitively). */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export type QuerySource = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * A vendor's request as the hook route received it. Everything a proof reads is here, the raw bytes first: D-285,
 * every proof but `secret in body` is checked on `rawBody` before anything parses it.
 */
export interface HookRequest {
  method: string;
  /** The full URL the vendor called, exactly as it was sent (scheme and host as the route reconstructs them). */
  url: string;
  headers: HeaderSource;
  query: QuerySource;
  rawBody: Buffer;
  /** The parsed body (one JSON tree, docs/connections.md "Bodies"): only `secret in body` needs it. */
  body?: unknown;
}

/**
 * One header's value; a header sent twice arrives joined with ", " (as `Headers` joins it). Own properties only: a
 * declared name like `constructor` must find nothing in a plain object rather than its prototype's function.
 */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === "string" ? value : value.join(", ");
  }
  return undefined;
}

/** One query parameter; a name repeated is ambiguous (which one did the vendor mean?) and reads as `repeated`. */
export function readQuery(query: QuerySource, name: string): string | "repeated" | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  const value = query[name];
  if (value === undefined || typeof value === "string") return value;
  if (value.length > 1) return "repeated";
  return value[0];
}

/** The request line's path and query, sliced from the URL as sent (never re-encoded: the vendor signed these bytes). */
export function urlParts(url: string): { path: string; query: string } {
  const withoutFragment = url.split("#", 1)[0] ?? "";
  const mark = withoutFragment.indexOf("?");
  const beforeQuery = mark < 0 ? withoutFragment : withoutFragment.slice(0, mark);
  const origin = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(beforeQuery);
  const path = origin ? beforeQuery.slice(origin[0].length) || "/" : beforeQuery;
  return { path, query: mark < 0 ? "" : withoutFragment.slice(mark + 1) };
}
