import { describe, expect, it } from "vitest";
import { canonicalFields, requiredFields } from "../../src/gateway/posting-docs/canonical-fields.js";
import { profileReads, type SourceRead } from "../../src/gateway/posting-docs/profile-reads.js";
import { sampleTypes } from "../../src/gateway/posting-docs/sample-types.js";

const LEAD = requiredFields("lead");
const reads = (expression: string) => profileReads(expression, LEAD);
const byPath = (found: SourceRead[]) =>
  Object.fromEntries(found.map((r) => [r.where ? `${r.path} [${r.where}]` : r.path, r]));

describe("the fields a profile reads, derived from its expression (D-326)", () => {
  it("reads plain and nested paths, under the canonical field each feeds", () => {
    const found = byPath(
      reads(`{ "fullName": person.name.full, "email": person.email, "phone": tel, "address": addr }`),
    );
    expect(found["person.name.full"]).toEqual({ path: "person.name.full", feeds: ["fullName"], need: "required" });
    expect(Object.keys(found).sort()).toEqual(["addr", "person.email", "person.name.full", "tel"]);
  });

  it("reads a result built at the end of a path (`lead.{…}`) relative to it, and `$$` from the root", () => {
    const found = byPath(
      reads(`lead.{ "fullName": name, "email": $$.contact.email, "phone": $.tel, "address": addr }`),
    );
    expect(Object.keys(found).sort()).toEqual(["contact.email", "lead.addr", "lead.name", "lead.tel"]);
  });

  it("names what a shipped helper takes each argument as; a helper's setting is optional", () => {
    const found = byPath(
      reads(`{
        "fullName": $joinName(first, last),
        "email": $normalizeEmail(mail),
        "phone": $phoneE164(tel, country),
        "address": $joinAddress(street, city, state, zip),
        "smsConsent": $toBool(sms)
      }`),
    );
    expect(found.mail).toMatchObject({ readAs: "an e-mail address", need: "required" });
    expect(found.tel).toMatchObject({ readAs: "a phone number", need: "required" });
    expect(found.country).toMatchObject({ readAs: "a country (ISO 3166-1 code)", need: "optional" });
    expect(found.zip).toMatchObject({ readAs: "a postal code", feeds: ["address"], need: "required" });
    expect(found.sms).toMatchObject({ feeds: ["smsConsent"], need: "optional" });
  });

  it("follows block variables bound to paths, and `$parseJson` into a document inside a string", () => {
    const found = byPath(
      reads(`(
        $c := contact;
        $doc := $parseJson(raw);
        { "fullName": $c.name, "email": $doc.email, "phone": $doc.phones[0], "address": $c.address.line1 }
      )`),
    );
    expect(Object.keys(found).sort()).toEqual([
      "contact.address.line1",
      "contact.name",
      "raw → email",
      "raw → phones[0]",
    ]);
  });

  it("reads a key-value list through its filter: the value, and the key that picks the item (`where`)", () => {
    const found = reads(`{
      "fullName": fields[name = "full_name"].values[0],
      "email": fields[name = "email"].values[0],
      "phone": answers[question = "Phone"].answer,
      "address": fields[name = "street_address"].values[0]
    }`);
    const email = found.find((r) => r.where === 'name = "email"');
    expect(email).toEqual({ path: "fields[].values[0]", feeds: ["email"], need: "required", where: 'name = "email"' });
    expect(found.find((r) => r.path === "fields[].name")).toMatchObject({
      feeds: ["fullName", "email", "address"],
      readAs: "picks the item",
    });
    expect(found.find((r) => r.path === "answers[].answer")?.where).toBe('question = "Phone"');
  });

  it("reads a lambda called with literals and paths, its arguments standing for them in the filter's text", () => {
    const found = reads(`(
      $answer := function($wordings) { ($$.answers[$lowercase(question) in $wordings].answer)[0] };
      { "fullName": $answer(["name", "full name"]), "email": $answer(["email"]), "phone": tel, "address": addr }
    )`);
    expect(found.find((r) => r.feeds.includes("email") && r.path === "answers[].answer")?.where).toBe(
      '$lowercase(question) in ["email"]',
    );
    expect(found.filter((r) => r.path === "answers[].answer")).toHaveLength(2);
  });

  it("tells alternatives (`$default` of two reads) from a fallback to a literal (optional) and a condition's reads", () => {
    const found = byPath(
      reads(`{
        "fullName": name,
        "email": $default(email, contact.email),
        "phone": $default(phone, "5550100000"),
        "address": addr,
        "smsConsent": consent = "yes" ? true : false
      }`),
    );
    expect(found.email).toMatchObject({ need: "oneOf", alternatives: ["contact.email"] });
    expect(found["contact.email"]).toMatchObject({ need: "oneOf", alternatives: ["email"] });
    expect(found.phone).toMatchObject({ need: "optional" });
    expect(found.consent).toMatchObject({ feeds: ["smsConsent"], need: "optional" });
    // The positive control: a field read plainly is required.
    expect(found.name?.need).toBe("required");
  });

  it("reads a recursive lambda once, and a list's later items as optional", () => {
    const found = byPath(
      reads(`(
        $count := function($n) { $n <= 1 ? 0 : $count($n - 1) };
        { "fullName": name, "email": email, "phone": phone, "address": $join([street, unit], " "), "smsConsent": $count(tries) = 0 }
      )`),
    );
    expect(found.street?.need).toBe("required");
    expect(found.unit?.need).toBe("optional");
    expect(found.tries?.feeds).toEqual(["smsConsent"]);
  });
});

describe("types from the golden samples, rules from the canonical schema (D-326)", () => {
  it("types a field by the values the samples carry, through lists and JSON documents in strings", () => {
    const payloads = [
      { a: { b: "x" }, list: [{ v: 1 }, { v: "2" }], raw: JSON.stringify({ ok: true }) },
      { a: { b: null } },
    ];
    expect(sampleTypes(payloads, "a.b")).toEqual(["null", "string"]);
    expect(sampleTypes(payloads, "list[].v")).toEqual(["number", "string"]);
    expect(sampleTypes(payloads, "list[0].v")).toEqual(["number"]);
    expect(sampleTypes(payloads, "raw → ok")).toEqual(["boolean"]);
    expect(sampleTypes(payloads, "missing")).toEqual([]);
  });

  it("§2.7/§2.8: states the record's required fields and rules as the validation has them", () => {
    expect([...requiredFields("lead")].sort()).toEqual(["address", "email", "fullName", "phone"]);
    expect([...requiredFields("appointment")].sort()).toEqual(["endsAt", "idempotencyKey", "leadId", "startsAt"]);
    const phone = canonicalFields("lead").find((f) => f.field === "phone");
    expect(phone?.rules).toEqual(expect.arrayContaining(["7 to 40 characters", "matches ^[0-9 +()-]+$"]));
    const endsAt = canonicalFields("appointment").find((f) => f.field === "endsAt");
    expect(endsAt?.rules).toEqual(expect.arrayContaining(["must be after startsAt"]));
    const key = canonicalFields("appointment").find((f) => f.field === "idempotencyKey");
    expect(key?.rules).toContain("8 to 160 characters");
  });
});
