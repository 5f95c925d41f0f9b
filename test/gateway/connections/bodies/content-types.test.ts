import { describe, expect, it } from "vitest";
import {
  HOOK_BODY_CODES,
  HOOK_BODY_ERRORS,
  HOOK_BODY_LIMITS,
  parseHookBody,
} from "../../../../src/gateway/connections/bodies/index.js";
import { BOUNDARY, MULTIPART, multipart, refusal, text } from "./fixtures.js";

const JSON_BODY = text('{"name":"Ada"}');
const FORM_BODY = text("name=Ada");
const XML_BODY = text("<lead><name>Ada</name></lead>");
const MULTIPART_BODY = multipart([{ name: "name", value: "Ada" }]);

describe("docs/connections.md, Bodies: the body type comes from the content type (D-280)", () => {
  it.each([
    ["application/json", JSON_BODY, { name: "Ada" }],
    ["text/json", JSON_BODY, { name: "Ada" }],
    ["application/vnd.api+json", JSON_BODY, { name: "Ada" }],
    ["application/x-www-form-urlencoded", FORM_BODY, { name: "Ada" }],
    [MULTIPART, MULTIPART_BODY, { name: "Ada" }],
    ["application/xml", XML_BODY, { lead: { name: "Ada" } }],
    ["text/xml", XML_BODY, { lead: { name: "Ada" } }],
    ["application/soap+xml", XML_BODY, { lead: { name: "Ada" } }],
  ])("%s is parsed as its type", async (contentType, body, tree) => {
    expect(await parseHookBody(body, contentType)).toEqual(tree);
  });

  it.each([
    ["APPLICATION/JSON; CHARSET=UTF-8", JSON_BODY],
    [' application/json ;charset="utf-8"; foo=bar', JSON_BODY],
    ["Application/X-WWW-Form-URLEncoded;Charset=UTF-8", FORM_BODY],
    ['Text/XML; charset="UTF-8"', XML_BODY],
    [`Multipart/Form-Data; BOUNDARY="${BOUNDARY}"`, MULTIPART_BODY],
    ["application/json; garbage; charset=utf-8", JSON_BODY],
  ])("the type is matched case-insensitively, with its parameters: %s", async (contentType, body) => {
    expect(await parseHookBody(body, contentType)).toBeTypeOf("object");
  });

  it.each([
    undefined,
    "",
    "text/plain",
    "application/octet-stream",
    "json",
    "application/json garbage",
    "application/jsonx",
    "multipart/mixed; boundary=x",
    "image/svg+xml",
    "application/json/xml",
  ])("%s is refused with 415 unsupported_media_type", async (contentType) => {
    const error = await refusal(JSON_BODY, contentType);
    expect([error.code, error.status]).toEqual(["unsupported_media_type", 415]);
  });
});

describe("docs/connections.md, Bodies: UTF-8 only (D-281)", () => {
  it.each([
    ["application/x-www-form-urlencoded; charset=iso-8859-1", FORM_BODY],
    ["application/x-www-form-urlencoded; charset=windows-1252", FORM_BODY],
    ['application/xml; charset="Shift_JIS"', XML_BODY],
    ["text/xml; charset=utf-16", XML_BODY],
  ])("a form or XML body in another charset is refused with 415: %s", async (contentType, body) => {
    const error = await refusal(body, contentType);
    expect([error.code, error.status]).toEqual(["unsupported_charset", 415]);
    // The same body declared UTF-8 or US-ASCII is taken.
    const utf8 = contentType.replace(/charset=.*/, "charset=UTF-8");
    expect(await parseHookBody(body, utf8)).toBeTypeOf("object");
    expect(await parseHookBody(body, contentType.replace(/charset=.*/, "charset=us-ascii"))).toBeTypeOf("object");
  });

  it("an XML declaration naming another encoding is refused with 415, UTF-8 taken", async () => {
    const latin = text('<?xml version="1.0" encoding="ISO-8859-1"?><lead><name>Ada</name></lead>');
    const error = await refusal(latin, "application/xml");
    expect([error.code, error.status, error.details]).toEqual(["unsupported_charset", 415, { charset: "ISO-8859-1" }]);
    const utf8 = text("<?xml version='1.0' encoding='utf-8' standalone='yes'?><lead><name>Ada</name></lead>");
    expect(await parseHookBody(utf8, "application/xml")).toEqual({ lead: { name: "Ada" } });
  });

  it("a JSON body's charset is ignored, as intake ignores it (RFC 8259 defines none)", async () => {
    expect(await parseHookBody(JSON_BODY, "application/json; charset=iso-8859-1")).toEqual({ name: "Ada" });
  });

  it.each([
    ["application/json", Buffer.concat([text('{"name":"'), Buffer.from([0xc3, 0x28]), text('"}')])],
    ["application/x-www-form-urlencoded", Buffer.concat([text("name="), Buffer.from([0xe9])])],
    ["application/xml", Buffer.concat([text("<name>"), Buffer.from([0xff, 0xfe]), text("</name>")])],
  ])("%s: bytes that are not UTF-8 are refused with 400, not replaced", async (contentType, body) => {
    const error = await refusal(body, contentType);
    expect([error.code, error.status]).toEqual(["malformed_body", 400]);
  });

  it("UTF-8 text, behind a byte-order mark or not, is taken", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await parseHookBody(Buffer.concat([bom, text('{"name":"Zoë"}')]), "application/json")).toEqual({
      name: "Zoë",
    });
    expect(await parseHookBody(Buffer.concat([bom, text("<name>Zoë</name>")]), "text/xml")).toEqual({ name: "Zoë" });
    expect(await parseHookBody(text("name=Zo%C3%AB&city=Zoë"), "application/x-www-form-urlencoded")).toEqual({
      name: "Zoë",
      city: "Zoë",
    });
  });

  it("a form's percent-encoded bytes that are not UTF-8 become U+FFFD, as URLSearchParams decodes them", async () => {
    expect(await parseHookBody(text("name=Zo%EB"), "application/x-www-form-urlencoded")).toEqual({ name: "Zo\uFFFD" });
  });
});

describe("docs/connections.md, Bodies: §8's 1 MB on every type (D-283)", () => {
  const max = HOOK_BODY_LIMITS.maxBytes;
  const pad = (prefix: string, suffix: string, size: number) =>
    text(`${prefix}${"x".repeat(size - prefix.length - suffix.length)}${suffix}`);
  const bodies: [string, (size: number) => Buffer][] = [
    ["application/json", (size) => pad('{"note":"', '"}', size)],
    ["application/x-www-form-urlencoded", (size) => pad("note=", "", size)],
    ["application/xml", (size) => pad("<note>", "</note>", size)],
    [
      MULTIPART,
      (size) => {
        const empty = multipart([{ name: "note", value: "" }]).length;
        return multipart([{ name: "note", value: "x".repeat(size - empty) }]);
      },
    ],
  ];

  it.each(bodies)("%s: 1 MB is parsed, 1 MB and one byte is refused with 413", async (contentType, body) => {
    expect(max).toBe(1_000_000);
    const full = body(max);
    expect(full.length).toBe(max);
    expect(await parseHookBody(full, contentType)).toBeTypeOf("object");
    const over = body(max + 1);
    expect(over.length).toBe(max + 1);
    const error = await refusal(over, contentType);
    expect([error.code, error.status, error.details]).toEqual(["body_too_large", 413, { maxBytes: max }]);
  });

  it("the limit is checked before the content type (a 413 before a 415), as at intake", async () => {
    const error = await refusal(Buffer.alloc(max + 1), "image/png");
    expect(error.code).toBe("body_too_large");
    expect((await refusal(Buffer.alloc(max), "image/png")).code).toBe("unsupported_media_type");
  });

  it("a caller may pass tighter limits", async () => {
    expect((await refusal(JSON_BODY, "application/json", { maxBytes: 10 })).code).toBe("body_too_large");
    expect(await parseHookBody(JSON_BODY, "application/json", { maxBytes: JSON_BODY.length })).toEqual({ name: "Ada" });
  });
});

describe("docs/connections.md, Bodies: refusals (D-284)", () => {
  it("every code of the closed list has one status, and each is the vendor's doing (4xx)", () => {
    expect(Object.fromEntries(HOOK_BODY_CODES.map((code) => [code, HOOK_BODY_ERRORS[code].status]))).toEqual({
      unsupported_media_type: 415,
      unsupported_charset: 415,
      body_too_large: 413,
      too_many_fields: 413,
      too_deep: 400,
      malformed_body: 400,
      file_part_refused: 415,
      xml_dtd_refused: 400,
    });
  });
});
