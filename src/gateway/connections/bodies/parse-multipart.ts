import busboy from "busboy";
import { FieldTree } from "./field-tree.js";
import { HookBodyError, malformed, tooManyFields } from "./hook-body-error.js";
import type { JsonValue } from "./json-value.js";
import type { HookBodyLimits } from "./limits.js";

/**
 * A `multipart/form-data` body (Jotform's): its fields in order, as a form's (D-280). A file part — one with a
 * non-empty filename, or of type application/octet-stream, as busboy tells them — is refused, never read (D-284). A
 * field is as large as the body allows; a part's own charset is honoured as busboy decodes it (D-281).
 */
export function parseMultipart(raw: Uint8Array, contentType: string, limits: HookBodyLimits): Promise<JsonValue> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": contentType },
        // A part's name is UTF-8, as browsers and form tools send it (busboy reads it as Latin-1 otherwise).
        defParamCharset: "utf8",
        // busboy signals `partsLimit` on reaching its figure, `fieldsLimit` on passing it: parts are counted like fields
        // (D-283), and no file is ever buffered (its first part signals `filesLimit`).
        limits: { files: 0, fields: limits.maxFields, parts: limits.maxFields + 1, fieldSize: limits.maxBytes },
      });
    } catch (cause) {
      reject(malformed("the multipart content type names no usable boundary", cause));
      return;
    }
    const fields = new FieldTree(limits.maxFields);
    let refusal: HookBodyError | undefined;
    const refuse = (error: HookBodyError) => {
      refusal ??= error;
    };
    parser.on("field", (name: unknown, value: unknown) => {
      // A part without a name (busboy reads an empty one as none) addresses nothing: skipped, as a part that is no
      // form-data field is (D-280).
      if (refusal || typeof name !== "string") return;
      if (typeof value !== "string")
        return refuse(malformed(`multipart field ${name.slice(0, 100)} could not be decoded`));
      try {
        fields.add(name, value);
      } catch (error) {
        refuse(error instanceof HookBodyError ? error : malformed("a multipart field could not be read", error));
      }
    });
    parser.on("filesLimit", () =>
      refuse(new HookBodyError("file_part_refused", "a multipart body may not carry files")),
    );
    parser.on("fieldsLimit", () => refuse(tooManyFields(limits.maxFields)));
    parser.on("partsLimit", () => refuse(tooManyFields(limits.maxFields)));
    parser.on("error", (cause: Error) => refuse(malformed(`the multipart body is malformed: ${cause.message}`, cause)));
    // After the end of the body or an error alike: one answer.
    parser.on("close", () => (refusal ? reject(refusal) : resolve(fields.tree())));
    parser.end(raw);
  });
}
