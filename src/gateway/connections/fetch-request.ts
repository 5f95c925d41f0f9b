import { type FetchDeclaration, URL_PLACEHOLDER } from "./presets/index.js";

/** The GET that reads one notified record from the vendor's API. */
export interface VendorRequest {
  url: string;
  headers: Record<string, string>;
  /** The URL as the owner may read it (logs, the row's last error): no query string, where a token may travel. */
  shown: string;
}

export type VendorRequestResult = { ok: true; request: VendorRequest } | { ok: false; reason: string };

/** What a header may carry: visible ASCII and spaces (a line break would split the request). */
const HEADER_VALUE = /^[\x20-\x7e]*$/;

export const FETCH_USER_AGENT = "partner-gateway-fetch/1";

/**
 * The request for one notified record (docs/connections.md, "Fetch after notify"; D-320): the declaration's URL with
 * each `{name}` filled from the target, URL-encoded — a value chooses a path segment or a query value, never a host
 * (the template writes the host out, D-304), nor a dot segment that would climb the path —, `apiBase` (a sandbox
 * connection's `vendorApiBase`) in place of the origin, the declared auth with the connection's secrets, the fixed
 * headers, and `accept`. Or why it cannot be made: the owner's to fix, so it is never retried.
 */
export function vendorRequest(
  fetch: FetchDeclaration,
  target: Readonly<Record<string, string>>,
  secrets: ReadonlyMap<string, string>,
  apiBase: string | undefined,
): VendorRequestResult {
  let missing: string | undefined;
  const filled = fetch.url.replace(URL_PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(target, name) ? target[name] : undefined;
    if (value === undefined || value === "" || value === "." || value === "..") {
      missing ??= name;
      return "";
    }
    return encodeURIComponent(value);
  });
  if (missing !== undefined)
    return { ok: false, reason: `the notification gave no usable value for {${missing}} of the fetch URL` };
  let url = new URL(filled);
  if (apiBase !== undefined) {
    const base = URL.canParse(apiBase) ? new URL(apiBase) : undefined;
    if (base?.protocol !== "http:" && base?.protocol !== "https:")
      return { ok: false, reason: "the connection's vendorApiBase is not an http(s) URL" };
    url = new URL(`${base.origin}${base.pathname.replace(/\/$/, "")}${url.pathname}${url.search}`);
  }
  const shown = `${url.origin}${url.pathname}`;
  const headers: Record<string, string> = {
    ...fetch.headers,
    accept: fetch.accept,
    "user-agent": FETCH_USER_AGENT,
  };
  const secret = (name: string): string | { reason: string } => {
    const value = secrets.get(name);
    if (value === undefined || value === "") return { reason: `the connection has no secret ${name}: set it` };
    if (!HEADER_VALUE.test(value)) return { reason: `the secret ${name} holds characters a request cannot carry` };
    return value;
  };
  const { auth } = fetch;
  if (auth.type === "basic") {
    const username = secret(auth.username);
    if (typeof username !== "string") return { ok: false, ...username };
    const password = secret(auth.password);
    if (typeof password !== "string") return { ok: false, ...password };
    // RFC 7617 §2: user-id ":" password, base64.
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`, "utf8").toString("base64")}`;
  } else {
    const value = secret(auth.secret);
    if (typeof value !== "string") return { ok: false, ...value };
    if (auth.type === "bearer") headers.authorization = `Bearer ${value}`;
    else if (auth.type === "query") url.searchParams.set(auth.param, value);
    else headers[auth.name.toLowerCase()] = `${auth.prefix ?? ""}${value}`;
  }
  return { ok: true, request: { url: url.toString(), headers, shown } };
}
