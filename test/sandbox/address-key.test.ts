import { describe, expect, it } from "vitest";
import { addressKey, projectAddressKey } from "../../src/sandbox/inbound/address-key.js";

/** Pairs that must de-duplicate (§3.3 "same normalised address"), and pairs that must not. */
const same = (a: string, b: string) => expect(addressKey(a)).toBe(addressKey(b));
const different = (a: string, b: string) => expect(addressKey(a)).not.toBe(addressKey(b));

describe("§2.7/§3.3 address normalisation for de-duplication", () => {
  it("ignores case and runs of whitespace", () => {
    same("123 Main St, Springfield", "  123   MAIN st,springfield ");
  });

  it("treats punctuation as a word break, and drops dots and apostrophes inside words", () => {
    same("123 Main St., Springfield; IL", "123 Main St Springfield IL");
    same("12 O'Neil Rd", "12 ONeil Rd");
    same("12 N.W. Oak Ave", "12 NW Oak Ave");
  });

  it("abbreviates common street suffixes (USPS Pub 28)", () => {
    same("1 Main Street", "1 Main St");
    same("1 Grand Avenue", "1 Grand Ave");
    same("1 Mill Road", "1 Mill Rd");
    same("1 Sunset Boulevard", "1 Sunset Blvd");
    same("1 Lake Drive", "1 Lake Dr");
    same("1 Elm Lane", "1 Elm Ln");
    same("1 Oak Court", "1 Oak Ct");
    same("1 Park Place", "1 Park Pl");
    same("1 Ridge Parkway", "1 Ridge Pkwy");
    same("1 Coast Highway", "1 Coast Hwy");
  });

  it("abbreviates directionals", () => {
    same("10 North Main St", "10 N Main St");
    same("10 Main St Southwest", "10 Main St SW");
    same("10 East 5th Ave", "10 E 5th Ave");
  });

  it("reads Apt, Apartment, Unit, Suite, Ste and # as one unit designator", () => {
    const key = addressKey("5 Elm St Apt 4");
    for (const spelling of [
      "5 Elm St Apartment 4",
      "5 Elm St Unit 4",
      "5 Elm St Suite 4",
      "5 Elm St Ste 4",
      "5 Elm St #4",
    ]) {
      expect(addressKey(spelling)).toBe(key);
    }
    same("5 Elm St Apt #4", "5 Elm St # 4");
  });

  it("reduces ZIP+4 to the five-digit ZIP", () => {
    same("1 Main St, Phoenix, AZ 85004-1234", "1 Main St, Phoenix, AZ 85004");
  });

  it("keeps what tells addresses apart: house number, unit, street, ZIP", () => {
    different("123 Main St", "124 Main St");
    different("5 Elm St Apt 4", "5 Elm St Apt 5");
    different("1 Main St", "1 Main Ave");
    different("1 Main St, Phoenix, AZ 85004", "1 Main St, Phoenix, AZ 85005");
  });

  it("builds a sold project's key from its line, city, state and ZIP so a full lead address matches it", () => {
    const project = { address: "100 Sunset Boulevard", city: "Phoenix", state: "AZ", zip: "85004" };
    expect(projectAddressKey(project)).toBe(addressKey("100 sunset blvd. phoenix az 85004-0001"));
  });
});
