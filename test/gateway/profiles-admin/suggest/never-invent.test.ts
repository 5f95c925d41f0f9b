import { describe, expect, it } from "vitest";
import { fieldOf, formLead, suggestAndMap } from "./support.js";

type Body = Record<string, unknown>;

/**
 * docs/decisions.md, D-312: a field the payloads do not carry is left out and listed as missing, never filled with
 * something that looks right. Each rule is checked beside a positive control: the same payloads with the field there.
 */
describe("never invents: an address needs a street line", () => {
  it("leaves the address out when the payloads give only a city, a state and a ZIP", async () => {
    const without = [0, 1, 2].map((n) => formLead(n, { street_address: undefined }));
    const { suggestion, outputs } = await suggestAndMap("lead", without);
    expect(suggestion.missing).toContain("address");
    expect(outputs.map((o) => (o as Body).address)).toEqual([undefined, undefined, undefined]);
    // Control: with the street, the same payloads have an address.
    const control = await suggestAndMap(
      "lead",
      [0, 1, 2].map((n) => formLead(n)),
    );
    expect((control.outputs[0] as Body).address).toBe("4102 Duval St, Austin, TX 78751");
  });

  it("gives no address to the one payload without a street, when the others have one", async () => {
    const payloads = [formLead(0), formLead(1, { street_address: "" }), formLead(2)];
    const { outputs } = await suggestAndMap("lead", payloads);
    expect((outputs[1] as Body).address).toBeUndefined();
    expect((outputs[0] as Body).address).toBe("4102 Duval St, Austin, TX 78751");
  });
});

describe("never invents: a company's name is not a person's", () => {
  it("leaves fullName out when only a company is named, and maps it from a person's name when there is one", async () => {
    const companies = ["Prairie Peak Roofing LLC", "Harbor Island Realty", "Bayshore Dental Group"];
    const onlyCompany = [0, 1, 2].map((n) =>
      formLead(n, { first_name: undefined, last_name: undefined, company_name: companies[n] }),
    );
    const { suggestion, outputs } = await suggestAndMap("lead", onlyCompany);
    expect(suggestion.missing).toContain("fullName");
    expect(outputs.every((o) => (o as Body).fullName === undefined)).toBe(true);
    const control = await suggestAndMap(
      "lead",
      [0, 1, 2].map((n) => formLead(n, { company_name: companies[n] })),
    );
    expect((control.outputs[0] as Body).fullName).toBe("Avery Castillo");
  });

  it("never reads the vendor's or an agent's contact for the lead's", async () => {
    const agent = (n: number) => ({
      agent: { name: "Kara Diaz", email: `agent${n}@vendor.example`, phone: "214-555-0100" },
    });
    const payloads = [0, 1, 2].map((n) => ({
      ...formLead(n, { email_address: undefined, phone_number: undefined }),
      ...agent(n),
    }));
    const { suggestion } = await suggestAndMap("lead", payloads);
    expect(suggestion.missing).toEqual(expect.arrayContaining(["email", "phone"]));
    // Control: the lead's own contact beside the agent's is found.
    const control = await suggestAndMap(
      "lead",
      [0, 1, 2].map((n) => ({ ...formLead(n), ...agent(n) })),
    );
    expect(fieldOf(control.suggestion, "email")?.sourcePath).toBe("email_address");
  });
});

describe("never invents: a record's times are not the visit's", () => {
  const person = (n: number) => ({ name: ["Helena Ruiz", "Dev Patel", "Ana Silva"][n], email: `p${n}@example.com` });

  it("does not take created_at or updated_at for the visit's start", async () => {
    const payloads = [0, 1, 2].map((n) => ({
      ...person(n),
      booking_id: `b-${n}`,
      created_at: `2026-05-0${n + 1}T13:22:09Z`,
      updated_at: `2026-05-0${n + 2}T08:00:00Z`,
    }));
    const { suggestion } = await suggestAndMap("appointment", payloads);
    expect(suggestion.missing).toContain("appointment.startsAt");
    // Control: a start named so is the start.
    const control = await suggestAndMap(
      "appointment",
      payloads.map((p, n) => ({ ...p, slot: { start: `2026-06-0${n + 1}T15:00:00Z` } })),
    );
    expect(fieldOf(control.suggestion, "appointment.startsAt")?.sourcePath).toBe("slot.start");
  });

  it("does not guess the zone of a local time: without a zone in the payloads there is no start", async () => {
    const local = [0, 1, 2].map((n) => ({ ...person(n), booking_id: `b-${n}`, start: `2026-06-0${n + 1} 09:30` }));
    const { suggestion } = await suggestAndMap("appointment", local);
    expect(suggestion.missing).toContain("appointment.startsAt");
    expect(suggestion.expression).toContain("nothing in the payloads names its zone");
    // Control: the zone named beside it converts it.
    const zoned = await suggestAndMap(
      "appointment",
      local.map((p) => ({ ...p, timezone: "America/Chicago" })),
    );
    const [first] = zoned.outputs as Body[][];
    expect(first?.[1]?.body).toMatchObject({ startsAt: "2026-06-01T14:30:00.000Z" });
  });
});

describe("never invents: ids, consent, names known by value", () => {
  it("does not take an id that is the same in every payload (a form's) for the booking's", async () => {
    const payloads = [0, 1, 2].map((n) => ({
      name: ["Helena Ruiz", "Dev Patel", "Ana Silva"][n],
      email: `p${n}@example.com`,
      form_id: "F-1",
      booking: { id: "bk-1", start: `2026-06-0${n + 1}T15:00:00Z` },
    }));
    const { suggestion, outputs } = await suggestAndMap("appointment", payloads);
    expect(suggestion.missing).toContain("appointment.id");
    expect((outputs[0] as Body[])[1]?.id).toBeUndefined();
    const control = await suggestAndMap(
      "appointment",
      payloads.map((p, n) => ({ ...p, booking: { ...p.booking, id: `bk-${n}` } })),
    );
    expect((control.outputs[2] as Body[])[1]?.id).toBe("bk-2");
  });

  it("does not read a newsletter's yes for text consent", async () => {
    const payloads = [0, 1, 2].map((n) => formLead(n, { newsletter_opt_in: n === 1 ? "no" : "yes" }));
    const { suggestion } = await suggestAndMap("lead", payloads);
    expect(suggestion.missing).toContain("smsConsent");
    const control = await suggestAndMap(
      "lead",
      [0, 1, 2].map((n) => formLead(n, { sms_opt_in: n === 1 ? "no" : "yes" })),
    );
    expect((control.outputs as Body[]).map((o) => o.smsConsent)).toEqual([true, false, true]);
  });

  it("takes an answer known only by an id for a name only when its words are in the lead's e-mail", async () => {
    const answers = (name: string, email: string, other: string) => ({
      responses: [
        { qid: "Q1", answer: name },
        { qid: "Q2", answer: email },
        { qid: "Q5", answer: other },
      ],
    });
    const unrelated = [
      answers("Hector Villanueva", "hv1977@example.test", "Central Air"),
      answers("Nadia Fortune", "nf.home@example.org", "Heat Pump"),
    ];
    const { suggestion } = await suggestAndMap("lead", unrelated);
    expect(suggestion.missing).toContain("fullName");
    const control = await suggestAndMap("lead", [
      answers("Hector Villanueva", "hector.v@example.test", "Central Air"),
      answers("Nadia Fortune", "nfortune@example.org", "Heat Pump"),
    ]);
    expect(fieldOf(control.suggestion, "fullName")).toMatchObject({
      sourcePath: 'responses[qid="Q1"].answer',
      confidence: "guess",
    });
  });

  it("does not take a bare run of digits for a phone by its looks (an id), only a number written as one", async () => {
    const payloads = [0, 1].map((n) => ({ ref: `${9120045518 + n}`, q7: ["(512) 555-0142", "737-555-0110"][n] }));
    const { suggestion } = await suggestAndMap("lead", payloads);
    expect(fieldOf(suggestion, "phone")?.sourcePath).toBe("q7");
    const { suggestion: idsOnly } = await suggestAndMap(
      "lead",
      payloads.map(({ ref }) => ({ ref })),
    );
    expect(idsOnly.missing).toContain("phone");
  });
});
