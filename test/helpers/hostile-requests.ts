import fc from "fast-check";

/**
 * Requests an attacker would send to intake and the owner API (docs/decisions.md, "Bounded input"): arbitrary JSON
 * (huge strings, deep nesting, any unicode, numbers at the edges, duplicate keys), bodies cut short or not UTF-8, wrong
 * content types, hostile headers — mostly with credentials the gateway accepts, so that they reach parsing and
 * validation. Shared by the property tests (a bounded number of runs) and `npm run bench:abuse` (a long run).
 */
export interface FuzzTarget {
  /** A vendor key bound to a lead profile, and one without a profile. */
  mappedKey: string;
  plainKey: string;
  /** A bearer token of an owner of the company. */
  ownerToken: string;
  /** The owner API's routes, from the app's OpenAPI document (`{param}` in paths). */
  ownerRoutes: { method: string; path: string }[];
  /** Ids that exist (a profile, a version, a key), put in path parameters some of the time. */
  ids: string[];
  /** An expression that maps the lead payloads, so some requests get as far as a mapping. */
  expression: string;
}

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  /** Sent with credentials the gateway accepts: the answer comes from parsing, validation or beyond. */
  authenticated: boolean;
}

export interface FuzzSizes {
  /** The longest generated string (a few are this long). */
  maxString: number;
  /** The deepest generated nesting. */
  maxDepth: number;
}

const EDGE_NUMBERS = [
  "0",
  "-0",
  "1e309",
  "-1e309",
  "1e-400",
  "5e-324",
  "1.7976931348623157e308",
  "9007199254740993",
  "-9007199254740993",
  "123456789012345678901234567890123456789",
  "0.1",
  "1E+2",
  "2.5e-3",
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

/** A string made of a short unit repeated up to `max` characters. */
function repeated(max: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max }))
    .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
}

/** Strings of every kind of character, up to a few thousand long (the huge ones come one per body, see jsonText). */
function texts(sizes: FuzzSizes): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: "grapheme", maxLength: 24 }) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 24 }) },
    { weight: 1, arbitrary: fc.string({ unit: loneSurrogate, maxLength: 3 }) },
    { weight: 1, arbitrary: repeated(Math.min(4_096, sizes.maxString)) },
  );
}

/** Words of the spec's bodies and the owner API's schemas, so generated objects often have the keys a route reads. */
const KEYS = [
  "fullName",
  "email",
  "phone",
  "address",
  "smsConsent",
  "leadId",
  "startsAt",
  "idempotencyKey",
  "kind",
  "expression",
  "payload",
  "samples",
  "name",
  "expect",
  "body",
  "error",
  "field",
  "password",
  "keyId",
  "limit",
  "value",
  "scopes",
  "credentialId",
  "partnerType",
  "submissionIds",
  "filter",
  "all",
  "versionId",
  "overlapSeconds",
  "url",
  "events",
  "__proto__",
  "constructor",
];

/** JSON text, written out rather than stringified, so numbers at the edges and duplicate keys appear as sent. */
export function jsonText(sizes: FuzzSizes): fc.Arbitrary<string> {
  const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: texts(sizes) });
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      tie("scalar"),
      tie("array"),
      tie("object"),
    ) as fc.Arbitrary<string>,
    scalar: fc.oneof(
      fc.constantFrom(...EDGE_NUMBERS),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.integer().map(String),
      texts(sizes).map((text) => JSON.stringify(text)),
      fc.constantFrom("true", "false", "null"),
    ),
    array: fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
    object: fc
      .array(fc.tuple(key, tie("value")), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
  }));
  const deep = fc
    .tuple(value, fc.integer({ min: 2, max: sizes.maxDepth }), fc.boolean())
    .map(([inner, depth, arrays]) =>
      arrays
        ? `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`
        : `${'{"a":'.repeat(depth)}${inner}${"}".repeat(depth)}`,
    );
  // A huge string in one body in fifty: up to sizes.maxString, past every body limit at its longest.
  const huge = fc
    .tuple(fc.constantFrom(...KEYS), repeated(sizes.maxString), value)
    .map(([k, text, rest]) => `{${JSON.stringify(k)}:${JSON.stringify(text)},"rest":${rest}}`);
  return fc.oneof({ weight: 42, arbitrary: value }, { weight: 7, arbitrary: deep }, { weight: 1, arbitrary: huge });
}

/** A lead as a vendor might send it: the spec's fields with arbitrary values, sometimes with more around them. */
function leadText(sizes: FuzzSizes): fc.Arbitrary<string> {
  const field = fc.oneof({ weight: 3, arbitrary: texts(sizes).map((t) => JSON.stringify(t)) }, jsonText(sizes));
  return fc
    .tuple(
      fc.subarray(["fullName", "email", "phone", "address", "smsConsent", "name", "mail", "tel"]),
      fc.infiniteStream(field),
    )
    .map(([keys, values]) => `{${keys.map((k) => `${JSON.stringify(k)}:${values.next().value}`).join(",")}}`);
}

/** What travels as the body: the text, cut short, not UTF-8, behind a byte-order mark, or nothing. */
function bodyOf(text: fc.Arbitrary<string>): fc.Arbitrary<string | Uint8Array> {
  return fc.oneof(
    { weight: 8, arbitrary: text },
    {
      weight: 2,
      arbitrary: fc
        .tuple(text, fc.double({ min: 0, max: 1, noNaN: true }))
        .map(([t, at]) => t.slice(0, Math.floor(t.length * at))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(text, fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0]))
        .map(([t, bad]) => {
          const bytes = Buffer.from(t, "utf8");
          const at = bytes.length >> 1;
          return Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
        }),
    },
    { weight: 1, arbitrary: text.map((t) => `\ufeff${t}`) },
    { weight: 1, arbitrary: fc.constant("") },
  );
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/vnd.vendor+json",
  "Application/JSON;charset=latin1",
  "application/json;;;",
];
const WRONG_CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "json",
  "",
];

/** Visible ASCII: what a header value may hold and a client library will send. */
const headerText = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

const hostileHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    "idempotency-key": fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/), headerText(300)),
    prefer: fc.oneof(
      fc.constantFrom("wait=0", "wait=-5", "wait=99999999999999999999", "respond-async", "wait=abc", "wait=1, wait=2"),
      headerText(60),
    ),
    "x-request-id": headerText(400),
    "x-forwarded-for": fc.oneof(
      fc.ipV4().map((ip) => `${ip}, 127.0.0.1`),
      fc.ipV6(),
      headerText(80),
    ),
    cookie: headerText(200).map((text) => `pg_session=${text}`),
    "x-csrf-token": headerText(80),
    accept: headerText(40),
    "content-encoding": fc.constantFrom("gzip", "br", "identity"),
    "x-svc-api-version": headerText(20),
  },
  { requiredKeys: [] },
);

/** A header set, made only of what fetch accepts. */
function headers(base: Record<string, string>): fc.Arbitrary<Record<string, string>> {
  return hostileHeaders.map((hostile) => ({ ...hostile, ...base }));
}

function contentType(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constantFrom(...WRONG_CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Who the request says it is: the right credential most of the time, else none, a truncated one or garbage. */
function credential(
  valid: string[],
  header: "x-api-key" | "authorization",
): fc.Arbitrary<[Record<string, string>, boolean]> {
  const as = (value: string) => (header === "authorization" ? `Bearer ${value}` : value);
  return fc.oneof(
    {
      weight: 17,
      arbitrary: fc.constantFrom(...valid).map((v): [Record<string, string>, boolean] => [{ [header]: as(v) }, true]),
    },
    { weight: 1, arbitrary: fc.constant<[Record<string, string>, boolean]>([{}, false]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...valid), fc.nat())
        .map(([v, n]): [Record<string, string>, boolean] => [{ [header]: as(v.slice(0, n % v.length)) }, false]),
    },
    { weight: 1, arbitrary: headerText(120).map((v): [Record<string, string>, boolean] => [{ [header]: v }, false]) },
  );
}

function withContentType(h: Record<string, string>, type: string | undefined): Record<string, string> {
  return type === undefined ? h : { ...h, "content-type": type };
}

/** Hostile requests to intake's paths. */
export function intakeRequests(target: FuzzTarget, sizes: FuzzSizes): fc.Arbitrary<HostileRequest> {
  const text = fc.oneof({ weight: 2, arbitrary: leadText(sizes) }, { weight: 1, arbitrary: jsonText(sizes) });
  return fc
    .tuple(
      fc.constantFrom("/api/inbound/leads", "/api/inbound/appointments"),
      credential([target.mappedKey, target.plainKey], "x-api-key"),
      contentType(),
      bodyOf(text),
    )
    .chain(([path, [auth, authenticated], type, body]) =>
      headers(withContentType(auth, type)).map(
        (h): HostileRequest => ({ method: "POST", path, headers: h, body, authenticated }),
      ),
    );
}

/** Hostile requests to every route of the owner API, with bodies shaped like its schemas some of the time. */
export function ownerRequests(target: FuzzTarget, sizes: FuzzSizes): fc.Arbitrary<HostileRequest> {
  const param = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...target.ids) },
    { weight: 1, arbitrary: headerText(40).map((p) => encodeURIComponent(p) || "x") },
  );
  const payload = fc.oneof(leadText(sizes), jsonText(sizes));
  // Bodies with the keys routes read and values of any type: past the JSON parser, into the schemas.
  const shaped = fc
    .record(
      {
        kind: fc.constantFrom('"lead"', '"appointment"', '"outbound"', "7", '"x"'),
        expression: fc.oneof(
          fc.constant(JSON.stringify(target.expression)),
          texts(sizes).map((t) => JSON.stringify(t)),
        ),
        payload,
        samples: fc
          .array(
            payload.map((p) => `{"name":"s","payload":${p},"expect":{"body":${p}}}`),
            { maxLength: 3 },
          )
          .map((s) => `[${s.join(",")}]`),
        keyId: fc.constantFrom(...target.ids).map((id) => JSON.stringify(id)),
        limit: fc.constantFrom("1", "50", "500", "501", "-1", "1e309", '"5"'),
        name: texts(sizes).map((t) => JSON.stringify(t)),
        email: texts(sizes).map((t) => JSON.stringify(t)),
        password: texts(sizes).map((t) => JSON.stringify(t)),
        submissionIds: fc
          .array(
            texts(sizes).map((t) => JSON.stringify(t)),
            { maxLength: 4 },
          )
          .map((s) => `[${s.join(",")}]`),
      },
      { requiredKeys: [] },
    )
    .map(
      (fields) =>
        `{${Object.entries(fields)
          .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
          .join(",")}}`,
    );
  const text = fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: jsonText(sizes) });
  const query = fc
    .record(
      {
        limit: headerText(12),
        cursor: headerText(60),
        from: headerText(40),
        status: headerText(12),
        hours: headerText(8),
        keyId: param,
      },
      { requiredKeys: [] },
    )
    .map((q) => {
      const search = new URLSearchParams(q).toString();
      return search ? `?${search}` : "";
    });
  return fc
    .tuple(
      fc.constantFrom(...target.ownerRoutes),
      fc.infiniteStream(param),
      credential([target.ownerToken], "authorization"),
      contentType(),
      bodyOf(text),
      query,
    )
    .chain(([route, params, [auth, authenticated], type, body, search]) => {
      const path = route.path.replace(/\{[^}]+\}/g, () => String(params.next().value));
      const method = route.method.toUpperCase();
      const hasBody = method !== "GET" && method !== "DELETE";
      return headers(withContentType(auth, hasBody ? type : undefined)).map(
        (h): HostileRequest => ({
          method,
          path: `${path}${method === "GET" ? search : ""}`,
          headers: h,
          body: hasBody ? body : undefined,
          authenticated,
        }),
      );
    });
}

/** What an answer may be: anything but a 500; a designed 503 (the evaluators busy) says when to come back. */
export function acceptableAnswer(status: number, retryAfter: string | null): boolean {
  if (status < 500) return true;
  return status === 503 && retryAfter !== null && /^[1-9][0-9]*$/.test(retryAfter);
}

/**
 * Sends one hostile request; the answer's status and retry-after (the body is read and dropped). A request whose
 * connection failed is sent once more: the server cuts a connection whose refused body is still arriving once its
 * bounded drain is over, and a keep-alive connection the server is closing can take the next request with it.
 */
export async function send(
  url: string,
  request: HostileRequest,
): Promise<{ status: number; retryAfter: string | null }> {
  try {
    return await sendOnce(url, request);
  } catch {
    return await sendOnce(url, request);
  }
}

async function sendOnce(url: string, request: HostileRequest): Promise<{ status: number; retryAfter: string | null }> {
  const res = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: "manual",
  });
  // An event stream (the live log) never ends by itself: its status is the answer, and cancelling closes it.
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) await res.body?.cancel();
  else await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get("retry-after") };
}
