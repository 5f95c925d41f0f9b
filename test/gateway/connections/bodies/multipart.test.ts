import { describe, expect, it } from "vitest";
import { parseHookBody } from "../../../../src/gateway/connections/bodies/index.js";
import { BOUNDARY, MULTIPART, multipart, refusal, text } from "./fixtures.js";

describe("docs/connections.md, Bodies: multipart/form-data, fields only (D-280)", () => {
  it("is {name: value} of its fields, every value a string", async () => {
    const body = multipart([
      { name: "formID", value: "231234567890" },
      { name: "q3_fullName[first]", value: "Ada" },
      { name: "rawRequest", value: '{"q3_fullName":{"first":"Ada"}}' },
    ]);
    expect(await parseHookBody(body, MULTIPART)).toEqual({
      formID: "231234567890",
      "q3_fullName[first]": "Ada",
      rawRequest: '{"q3_fullName":{"first":"Ada"}}',
    });
  });

  it("a name repeated is an array of its values in order", async () => {
    const body = multipart([
      { name: "tag", value: "a" },
      { name: "x", value: "1" },
      { name: "tag", value: "b" },
      { name: "tag", value: "c" },
    ]);
    expect(await parseHookBody(body, MULTIPART)).toEqual({ tag: ["a", "b", "c"], x: "1" });
  });

  it("names and values are UTF-8; a value keeps its line breaks; an empty value is empty", async () => {
    const body = multipart([
      { name: "prénom", value: "Zoë" },
      { name: "note", value: "line 1\r\nline 2" },
      { name: "empty", value: "" },
    ]);
    expect(await parseHookBody(body, MULTIPART)).toEqual({ prénom: "Zoë", note: "line 1\r\nline 2", empty: "" });
  });

  it("a part that is no form-data field (no Content-Disposition) is skipped", async () => {
    const body = text(
      `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nstray\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
    );
    expect(await parseHookBody(body, MULTIPART)).toEqual({ a: "1" });
  });

  it("a part without a name, or with an empty one, is skipped", async () => {
    const body = text(
      `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\n1\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name=""\r\n\r\n2\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n3\r\n--${BOUNDARY}--\r\n`,
    );
    expect(await parseHookBody(body, MULTIPART)).toEqual({ a: "3" });
  });
});

describe("docs/connections.md, Bodies: multipart file parts are refused (D-284)", () => {
  const fields = [{ name: "name", value: "Ada" }];

  it.each([
    ["a part with a filename", { name: "upload", filename: "id.png", type: "image/png", value: "\x89PNG" }],
    [
      "an empty file input as a browser sends it",
      { name: "upload", filename: "", type: "application/octet-stream", value: "" },
    ],
    [
      "a part of type application/octet-stream",
      { name: "upload", filename: "x", type: "application/octet-stream", value: "x" },
    ],
  ])("%s is refused with 415 file_part_refused", async (_what, file) => {
    const error = await refusal(multipart([...fields, file]), MULTIPART);
    expect([error.code, error.status]).toEqual(["file_part_refused", 415]);
    // The same body without it is taken.
    expect(await parseHookBody(multipart(fields), MULTIPART)).toEqual({ name: "Ada" });
  });

  it("an empty filename on a part of another type is no filename, as busboy reads it: a field", async () => {
    const body = multipart([{ name: "note", filename: "", type: "text/plain", value: "x" }]);
    expect(await parseHookBody(body, MULTIPART)).toEqual({ note: "x" });
  });

  it("an octet-stream part is a file even without a filename, as busboy tells them", async () => {
    const body = text(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="blob"\r\nContent-Type: application/octet-stream\r\n\r\n` +
        `x\r\n--${BOUNDARY}--\r\n`,
    );
    expect((await refusal(body, MULTIPART)).code).toBe("file_part_refused");
  });
});

describe("docs/connections.md, Bodies: malformed multipart bodies (D-284)", () => {
  const body = multipart([
    { name: "a", value: "1" },
    { name: "b", value: "2" },
  ]);

  it.each([
    ["no boundary parameter", "multipart/form-data"],
    ["an empty boundary", "multipart/form-data; boundary="],
    ["a boundary the body does not use", "multipart/form-data; boundary=other"],
    ["a boundary that is a prefix of the body's", `multipart/form-data; boundary=${BOUNDARY.slice(0, 10)}`],
  ])("%s is refused with 400 malformed_body", async (_what, contentType) => {
    const error = await refusal(body, contentType);
    expect([error.code, error.status]).toEqual(["malformed_body", 400]);
  });

  it("a body cut short anywhere is refused; only the whole body (its closing delimiter) is taken", async () => {
    const closed = body.indexOf(`--${BOUNDARY}--`) + BOUNDARY.length + 4;
    for (let length = 0; length < body.length; length++) {
      const cut = body.subarray(0, length);
      if (length >= closed) expect(await parseHookBody(cut, MULTIPART)).toEqual({ a: "1", b: "2" });
      else expect((await refusal(cut, MULTIPART)).code, `cut at ${length}`).toBe("malformed_body");
    }
  });

  it("a part whose header never ends is refused", async () => {
    const broken = text(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n1\r\n--${BOUNDARY}--\r\n`);
    expect((await refusal(broken, MULTIPART)).code).toBe("malformed_body");
  });

  it("takes 1,000 fields and refuses 1,001 with 413 too_many_fields (D-283)", async () => {
    const parts = (count: number) => multipart(Array.from({ length: count }, (_, i) => ({ name: "f", value: `${i}` })));
    expect(((await parseHookBody(parts(1_000), MULTIPART)) as { f: string[] }).f).toHaveLength(1_000);
    const error = await refusal(parts(1_001), MULTIPART);
    expect([error.code, error.status]).toEqual(["too_many_fields", 413]);
  });

  it("parts that are no fields count towards the limit too", async () => {
    const stray = `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nstray\r\n`;
    const strays = (count: number) => text(`${stray.repeat(count)}--${BOUNDARY}--\r\n`);
    expect(await parseHookBody(strays(1_000), MULTIPART)).toEqual({});
    expect((await refusal(strays(1_001), MULTIPART)).code).toBe("too_many_fields");
  });
});
