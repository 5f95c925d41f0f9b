import { describe, expect, it } from "vitest";
import { JsonStrings } from "../../../../src/gateway/profiles-admin/suggest/json-in-string.js";
import { displayPath } from "../../../../src/gateway/profiles-admin/suggest/path.js";
import { readStructure } from "../../../../src/gateway/profiles-admin/suggest/structure.js";
import { walkPayload } from "../../../../src/gateway/profiles-admin/suggest/walk.js";

/** Every value of the first payload: its path as JSONata reads it, and the words that name it. */
function leaves(...payloads: unknown[]): Map<string, { value: unknown; words: string[] }> {
  const strings = new JsonStrings();
  const structure = readStructure(payloads, strings);
  const found = new Map<string, { value: unknown; words: string[] }>();
  for (const occurrence of walkPayload(payloads[0], structure, strings)) {
    const { own, label } = occurrence.naming;
    found.set(displayPath(occurrence.path) ?? "?", { value: occurrence.value, words: [...own, ...label] });
  }
  return found;
}

/** docs/profiles.md, "Suggested profiles": the shapes of payload it reads. */
describe("key-value lists are read by their key, never by position", () => {
  it("reads [{name, values: [...]}]", () => {
    const found = leaves({
      answers: [
        { name: "Best phone", values: ["512-555-0100"] },
        { name: "Email", values: ["a@b.co"] },
      ],
    });
    expect(found.get('answers[name="Best phone"].values[0]')).toEqual({
      value: "512-555-0100",
      words: ["best", "phone"],
    });
    expect(found.get('answers[name="Email"].values[0]')?.value).toBe("a@b.co");
  });

  it("reads [{column_id, string_value}], preferring a readable id to a label with spaces", () => {
    const found = leaves({
      columns: [
        { column_name: "User Phone", string_value: "+15125550100", column_id: "PHONE_NUMBER" },
        { column_name: "Full Name", string_value: "Ada Byron", column_id: "FULL_NAME" },
      ],
    });
    expect(found.get('columns[column_id="PHONE_NUMBER"].string_value')?.words).toEqual(["phone", "number"]);
    expect(found.has('columns[column_id="FULL_NAME"].string_value')).toBe(true);
  });

  it("reads [{name, value}], [{question, answer}] and [{label, value}]", () => {
    expect(
      leaves({
        f: [
          { name: "Zip", value: "78701" },
          { name: "City", value: "Austin" },
        ],
      }).get('f[name="Zip"].value')?.value,
    ).toBe("78701");
    expect(
      leaves({
        qa: [
          { question: "Your name?", answer: "Ada Byron" },
          { question: "Email?", answer: "a@b.co" },
        ],
      }).get('qa[question="Your name?"].answer')?.words,
    ).toEqual(["your", "name"]);
    expect(
      leaves({
        p: [
          { label: "Cell", value: "(512) 555-0100" },
          { label: "Zip", value: "1" },
        ],
      }).has('p[label="Cell"].value'),
    ).toBe(true);
  });

  it("reads XML's [{@name, #text}], and a list of one sent as a bare object in another payload", () => {
    const list = {
      Phones: {
        Phone: [
          { "@kind": "home", "#text": "614-555-0148" },
          { "@kind": "mobile", "#text": "614-555-0193" },
        ],
      },
    };
    const one = { Phones: { Phone: { "@kind": "home", "#text": "740-555-0122" } } };
    expect(leaves(list, one).get('Phones.Phone[`@kind`="mobile"].`#text`')?.words).toEqual(["mobile"]);
    // The single <Phone> is read at the same path the list gives it.
    expect(leaves(one, list).get('Phones.Phone[`@kind`="home"].`#text`')?.value).toBe("740-555-0122");
  });

  it("reads typed answers: the value under the key the answer's type names, keyed by the answer's ref", () => {
    const found = leaves({
      answers: [
        { type: "email", email: "ann@example.com", field: { id: "SMEUb7VJz92Q", ref: "contact_email" } },
        { type: "text", text: "Ann Lee", field: { id: "JwWggjAKtOkA", ref: "your_name" } },
        { type: "text", text: "Kitchen", field: { id: "KoJxDM3c6x8h", ref: "room" } },
      ],
    });
    expect(found.get('answers[field.ref="contact_email"].email')?.value).toBe("ann@example.com");
    expect(found.get('answers[field.ref="your_name"].text')?.words).toEqual(["your", "name"]);
  });

  it("names an answer that carries only a question id by the question's title found elsewhere", () => {
    const found = leaves({
      questions: [
        { slot: "c9", title: "Full name" },
        { slot: "a7", title: "Email" },
      ],
      entries: [
        { slot: "c9", kind: "text", text: "Ravi Shah" },
        { slot: "a7", kind: "email", email: "ravi@example.com" },
      ],
    });
    expect(found.get('entries[slot="c9"].text')?.words).toEqual(["c", "9", "full", "name"]);
    // Control: an id no question names keeps only its own words.
    expect(
      leaves({
        entries: [
          { slot: "q1", kind: "text", text: "x" },
          { slot: "q2", kind: "text", text: "y" },
        ],
      }).get('entries[slot="q1"].text')?.words,
    ).toEqual(["q", "1"]);
  });

  it("reads a list of records (people, attendees) by its first item, not as key-value pairs", () => {
    const found = leaves({
      attendees: [
        { name: "Guest User", email: "guest@example.com", timeZone: "UTC", language: { locale: "en" } },
        { name: "Other Guest", email: "other@example.com", timeZone: "UTC", language: { locale: "en" } },
      ],
    });
    expect(found.get("attendees[0].email")?.value).toBe("guest@example.com");
    expect([...found.keys()].some((path) => path.includes("[name="))).toBe(false);
  });
});

describe("other shapes", () => {
  it("decodes a JSON document held in a string field, and reads inside it through $parseJson", () => {
    const found = leaves({ entry: { id: 1, data: '{"contact":{"email":"a@b.co","name":"Ada Byron"}}' } });
    expect(found.get("$parseJson(entry.data).contact.email")?.value).toBe("a@b.co");
    // Control: a string that only looks like JSON stays a string.
    expect(leaves({ note: "{not json}" }).get("note")?.value).toBe("{not json}");
  });

  it("decodes a field only when it is JSON in every payload that fills it: $parseJson fails on text", () => {
    const json = { entry: { data: '{"email":"a@b.co"}' } };
    const text = { entry: { data: "see attachment" } };
    expect(leaves(json, { entry: { data: "" } }).has("$parseJson(entry.data).email")).toBe(true);
    const mixed = leaves(json, text);
    expect(mixed.has("$parseJson(entry.data).email")).toBe(false);
    expect(mixed.get("entry.data")?.value).toBe('{"email":"a@b.co"}');
  });

  it("writes names JSONata cannot read bare in backticks: dotted form fields, numbers, reserved words", () => {
    const found = leaves({ "contact.email": "a@b.co", "4.1": "12 Oak St", and: "x", first_name: "Ada" });
    expect(found.has("`contact.email`")).toBe(true);
    expect(found.has("`4.1`")).toBe(true);
    expect(found.has("`and`")).toBe(true);
    expect(found.has("first_name")).toBe(true);
  });

  it("names a `value` by its sibling label (`{label, value}` as an object) and a list of values by the list", () => {
    const found = leaves({
      responses: { email: { label: "email_address", value: "a@b.co" } },
      phones: ["512-555-0100"],
    });
    expect(found.get("responses.email.value")?.words).toEqual(["email", "address"]);
    expect(found.get("phones[0]")?.words).toEqual(["phones"]);
  });

  it("reads a payload that is a list from `$`", () => {
    expect(leaves([{ email: "a@b.co" }]).has("$[0].email")).toBe(true);
  });
});
