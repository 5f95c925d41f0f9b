import { startFakeVendorApi, type VendorAnswer } from "../fake-vendor-api.js";

/** A preset's fetch as its preset.json declares it (hooks contract, "Fetch"), read as plain data. */
export interface FetchDeclared {
  url: string;
  auth: {
    type: "bearer" | "basic" | "query" | "header";
    secret?: string;
    username?: string;
    password?: string;
    param?: string;
    name?: string;
    prefix?: string;
  };
  headers?: Record<string, string>;
  accept?: string;
}

/** One connection's view of the API: what it declares it fetches, with which secrets. */
interface Caller {
  fetch: FetchDeclared;
  secrets: Readonly<Record<string, string>>;
}

/**
 * The vendor's API as its documentation shows it: each record a sample's `fetched` documents, at the path the preset's
 * fetch URL names, answered only to a request carrying the declared auth and headers (401 otherwise, as the vendor
 * would: the row then fails and says so). `answering` sets what the API knows for the sample being sent, and which
 * connection calls; `served` lists the ids it answered, in order.
 */
export async function startDocumentedVendorApi() {
  let caller: Caller | undefined;
  let documented: Readonly<Record<string, unknown>> = {};
  const served: string[] = [];
  const refused: string[] = [];
  const api = await startFakeVendorApi((request): VendorAnswer => {
    if (!caller) return { status: 500, body: { error: "no caller set" } };
    const template = new URL(caller.fetch.url.replaceAll(/\{(\w+)\}/g, ":$1"));
    const id = idAt(template.pathname, request.url.pathname);
    const wrong = id === undefined ? `no such path ${request.url.pathname}` : wrongRequest(caller, template, request);
    if (wrong) {
      refused.push(wrong);
      return { status: 401, body: { error: wrong } };
    }
    const record = id === undefined ? undefined : documented[id];
    if (id === undefined || record === undefined) return { status: 404, body: { error: "no such record" } };
    served.push(id);
    return { status: 200, body: record };
  });
  return {
    ...api,
    served,
    refused,
    answering(next: Caller, records: Readonly<Record<string, unknown>> | undefined) {
      caller = next;
      documented = records ?? {};
    },
  };
}

export type DocumentedVendorApi = Awaited<ReturnType<typeof startDocumentedVendorApi>>;

/** The record id a path names, read against the template's path (`/v3/leads/:id`); undefined when it does not match. */
function idAt(templatePath: string, path: string): string | undefined {
  const want = templatePath.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  let id: string | undefined;
  for (const [index, segment] of want.entries()) {
    const actual = got[index] ?? "";
    if (segment.startsWith(":")) id = decodeURIComponent(actual);
    else if (segment !== actual) return undefined;
  }
  return id;
}

/** What is wrong with the request against the declaration, or undefined: the auth, the headers, the template's query. */
function wrongRequest(
  caller: Caller,
  template: URL,
  request: { url: URL; headers: Record<string, string | string[] | undefined> },
): string | undefined {
  const { auth, headers = {}, accept } = caller.fetch;
  const secret = (name: string | undefined) => (name === undefined ? undefined : caller.secrets[name]);
  const expected: Record<string, string | undefined> = {};
  if (auth.type === "bearer") expected.authorization = `Bearer ${secret(auth.secret)}`;
  if (auth.type === "basic") {
    const pair = `${secret(auth.username)}:${secret(auth.password)}`;
    expected.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  }
  if (auth.type === "header" && auth.name)
    expected[auth.name.toLowerCase()] = `${auth.prefix ?? ""}${secret(auth.secret)}`;
  for (const [name, value] of Object.entries(headers)) expected[name.toLowerCase()] = value;
  if (accept) expected.accept = accept;
  for (const [name, value] of Object.entries(expected)) {
    if (request.headers[name] !== value) return `header ${name}: not as declared`;
  }
  if (auth.type === "query" && request.url.searchParams.get(auth.param ?? "") !== secret(auth.secret)) {
    return `query ${auth.param}: not as declared`;
  }
  for (const [name, value] of template.searchParams) {
    // A value the template fills from the notification (`:id` here) is the record's, not a constant.
    if (!/^:\w+$/.test(value) && request.url.searchParams.get(name) !== value)
      return `query ${name}: not the template's`;
  }
  return undefined;
}
