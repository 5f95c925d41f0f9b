import { describe, expect, it } from "vitest";
import { parseProfile } from "../../../src/gateway/profiles/compile.js";
import { sourcePaths } from "../../../src/gateway/profiles/source-paths.js";

function paths(expression: string): Record<string, string> {
  const parsed = parseProfile(expression);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return Object.fromEntries(sourcePaths(parsed.ast));
}

describe("source paths: which vendor field feeds a canonical field (docs/profiles.md: 400 {error, field, sourcePath})", () => {
  it("maps a key to a plain path, to an indexed path, and through $ and $$", () => {
    expect(paths('{"email": contact.email, "phone": phones[0].number, "a": $.x.y, "b": $$.root}')).toEqual({
      email: "contact.email",
      phone: "phones[0].number",
      a: "x.y",
      b: "root",
    });
  });

  it("sees through a function whose only non-literal argument is a path", () => {
    expect(paths('{"phone": $phoneE164(contact.phone, "US"), "email": $lowercase(mail)}')).toEqual({
      phone: "contact.phone",
      email: "mail",
    });
  });

  it("claims nothing for concatenations, conditions, filters, several paths or nested calls", () => {
    expect(
      paths(`{
        "address": street & ", " & city,
        "fullName": $joinName(first, last),
        "phone": $default(mobile, home),
        "email": kind = "x" ? a : b,
        "x": items[type = "home"].value,
        "y": $trim($lowercase(email))
      }`),
    ).toEqual({});
  });

  it("follows the object constructor at the end of a block, with the block's variables bound to paths", () => {
    expect(paths('($c := contact; $p := $c.phones; {"email": $c.email, "phone": $p[0], "n": name})')).toEqual({
      email: "contact.email",
      phone: "contact.phones[0]",
      n: "name",
    });
  });

  it("prefixes the context of a path ending in an object constructor", () => {
    expect(paths('booking.{"leadId": customer_ref, "root": $$.event}')).toEqual({
      leadId: "booking.customer_ref",
      root: "event",
    });
  });

  it("names nested canonical fields with dots", () => {
    expect(paths('{"customer": {"email": c.mail}}')).toEqual({ "customer.email": "c.mail" });
  });

  it("claims nothing when the result is not an object constructor", () => {
    expect(paths('$merge([{}, {"email": mail}])')).toEqual({});
  });
});
