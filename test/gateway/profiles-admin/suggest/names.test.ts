import { describe, expect, it } from "vitest";
import { type Concept, nameScore } from "../../../../src/gateway/profiles-admin/suggest/concepts.js";
import { tokenize } from "../../../../src/gateway/profiles-admin/suggest/tokens.js";
import type { Naming } from "../../../../src/gateway/profiles-admin/suggest/walk.js";

/** A field named `key` inside fields named `around` (outermost first), or an item of a list keyed `label`. */
function named(key: string, around: string[] = [], label?: string): Naming {
  return {
    own: key === "" ? [] : tokenize(key),
    label: label === undefined ? [] : tokenize(label),
    context: around.flatMap(tokenize),
    shown: key,
  };
}

const score = (concept: Concept, key: string, around: string[] = [], label?: string) =>
  nameScore(concept, named(key, around, label));

/** docs/profiles.md, "Suggested profiles": names and synonyms in several conventions. */
describe("field names in any convention read as the same words", () => {
  it.each([
    ["email_address", ["email", "address"]],
    ["emailAddress", ["email", "address"]],
    ["EmailAddress", ["email", "address"]],
    ["EMAILADDRESS", ["email", "address"]],
    ["email-address", ["email", "address"]],
    ["contact.email", ["contact", "email"]],
    ["lead_first_name", ["lead", "first", "name"]],
    ["cf_zip5", ["cf", "zip", "5"]],
    ["q_text_ok", ["q", "text", "ok"]],
    ["@RequestId", ["request", "id"]],
    ["#text", ["text"]],
    ["firstname", ["first", "name"]],
    ["What's the best phone number?", ["what", "s", "the", "best", "phone", "number"]],
  ])("%s → %j", (name, words) => {
    expect(tokenize(name)).toEqual(words);
  });
});

describe("names say what a field is", () => {
  it("reads the canonical fields' synonyms", () => {
    expect(score("email", "EmailAddr")).toBe(3);
    expect(score("email", "e-mail")).toBe(3);
    expect(score("phone", "mobile-number")).toBe(3);
    expect(score("phone", "DayPhone")).toBe(3);
    expect(score("phone", "", ["Phones", "Phone"], "home")).toBe(2);
    expect(score("fullName", "full-name")).toBe(3);
    expect(score("fullName", "", ["fields"], "Your full name")).toBe(3);
    expect(score("firstName", "GivenName")).toBe(3);
    expect(score("firstName", "first", ["customer", "name"])).toBe(3);
    expect(score("lastName", "surname")).toBe(3);
    expect(score("lastName", "l_name")).toBe(3);
    expect(score("street", "Address1")).toBe(3);
    expect(score("line2", "street-2")).toBe(3);
    expect(score("city", "Municipality")).toBe(3);
    expect(score("region", "stateProvince")).toBe(3);
    expect(score("zip", "post-code")).toBe(3);
    expect(score("consent", "tcpa_optin")).toBe(3);
    expect(score("consent", "", ["flags"], "OK to text me about this quote")).toBe(3);
    expect(score("start", "scheduledFor", ["appointment"])).toBe(3);
    expect(score("end", "ends_ms", ["visit"])).toBe(3);
    expect(score("zone", "time-zone")).toBe(3);
    expect(score("recordId", "booking_ref")).toBe(3);
    expect(score("recordId", "id", ["booking"])).toBe(3);
  });

  it("says not, where the name is of something else: a company, a form, a creation time, a newsletter", () => {
    expect(score("fullName", "company_name")).toBe(0);
    expect(score("fullName", "name", ["form"])).toBe(-1);
    expect(score("fullName", "name", ["category"])).toBe(-1);
    expect(score("fullName", "first_name")).toBe(-1);
    // Positive control: a bare `name` in the customer's part of the payload is the customer's.
    expect(score("fullName", "name", ["customer"])).toBe(3);
    expect(score("start", "created_at")).toBe(-1);
    expect(score("start", "booked-at")).toBe(-1);
    expect(score("start", "start", ["previous"])).toBe(-1);
    expect(score("start", "start", ["slot"])).toBe(3);
    expect(score("consent", "", ["flags"], "Subscribe to newsletter")).toBe(-1);
    expect(score("phone", "fax")).toBe(-1);
    expect(score("phone", "tracking_number")).toBe(-1);
    expect(score("email", "email_opt_in")).toBe(-1);
    expect(score("recordId", "form_id")).toBe(-1);
    expect(score("recordId", "classID")).toBe(1);
    expect(score("street", "email_address")).toBe(0);
  });
});
