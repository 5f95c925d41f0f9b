import { describe, expect, it } from "vitest";
import { compileProfile } from "../../../../src/gateway/profiles/compile.js";
import { mappedOutcome } from "../../../../src/gateway/profiles/outcome.js";
import { MAX_UNMAPPED, suggestProfile } from "../../../../src/gateway/profiles-admin/suggest/index.js";
import { fieldOf, formLead, suggestAndMap } from "./support.js";

type Body = Record<string, unknown>;

/** docs/profiles.md, "Suggested profiles". */
describe("a suggested lead profile (§2.7)", () => {
  it("maps a flat form's fields with the shipped helpers, and its expression compiles", async () => {
    const payloads = [0, 1, 2].map((n) => formLead(n, { sms_opt_in: ["yes", "no", "yes"][n] }));
    const { suggestion, outputs } = await suggestAndMap("lead", payloads);
    expect(compileProfile(suggestion.expression)).toEqual({ ok: true });
    expect(suggestion.expression).toContain("$joinName(first_name, last_name)");
    expect(suggestion.expression).toContain("$normalizeEmail(email_address)");
    expect(suggestion.expression).toContain("$phoneE164(phone_number)");
    expect(suggestion.expression).toContain("$joinAddress(street_address, city, state, zip_code)");
    expect(suggestion.expression).toContain("$toBool(sms_opt_in)");
    expect(outputs[1]).toEqual({
      fullName: "Jordan Pike",
      email: "jpike@example.org",
      phone: "+15125550187",
      address: "77 Ranch Road 620 S, Lakeway, TX 78734",
      smsConsent: false,
    });
    expect(mappedOutcome("lead", outputs[0], () => undefined)).toMatchObject({ ok: true });
    expect(suggestion.missing).toEqual([]);
  });

  it("selects a key-value list's items by their key: a reordered or shorter list maps the same", async () => {
    const columns = (order: string[][]) => ({
      user_column_data: order.map(([column_id, string_value]) => ({ column_id, string_value })),
    });
    const a = columns([
      ["FULL_NAME", "Ada Byron"],
      ["PHONE_NUMBER", "+15125550100"],
      ["EMAIL", "ada@example.com"],
    ]);
    const b = columns([
      ["EMAIL", "bo@example.org"],
      ["PHONE_NUMBER", "(737) 555-0110"],
      ["FULL_NAME", "Bo Diddley"],
    ]);
    const { suggestion, outputs } = await suggestAndMap("lead", [a, b]);
    expect(suggestion.expression).toContain('user_column_data[column_id="PHONE_NUMBER"].string_value');
    expect(suggestion.expression).not.toMatch(/user_column_data\[\d\]/);
    expect(outputs[1]).toMatchObject({ fullName: "Bo Diddley", email: "bo@example.org", phone: "+17375550110" });
  });

  it("rates each field: certain when name and shape agree in every payload, likely when one is strong, guess else", () => {
    const suggestion = suggestProfile({
      kind: "lead",
      payloads: [
        {
          email: "a@example.com",
          phone: "(512) 555-0100",
          answers: [{ qid: "q1", answer: "12 Oak St, Austin, TX 78701" }],
        },
        { email: "b@example.com", answers: [{ qid: "q1", answer: "4 Elm Rd, Dallas, TX 75201" }] },
      ],
    });
    expect(fieldOf(suggestion, "email")).toMatchObject({
      confidence: "certain",
      sourcePath: "email",
      reason: "name `email` and every value is an e-mail address.",
    });
    expect(fieldOf(suggestion, "phone")?.confidence).toBe("likely");
    expect(fieldOf(suggestion, "address")).toMatchObject({
      confidence: "likely",
      sourcePath: 'answers[qid="q1"].answer',
    });
    expect(fieldOf(suggestion, "address")?.reason).toMatch(/^no name says so/);
  });

  it("reads the same field at several places: the most agreed first, the others where it is blank", async () => {
    const payloads = [
      {
        requester: { phone: null },
        custom: [
          { label: "Phone", value: "(612) 555-0150" },
          { label: "Name", value: "Pia Lund" },
        ],
      },
      { requester: { phone: "651-555-0112" }, custom: [{ label: "Name", value: "Oskar Berg" }] },
      {
        requester: { phone: null },
        custom: [
          { label: "Phone", value: "763 555 0174" },
          { label: "Name", value: "Linnea K" },
        ],
      },
    ];
    const { suggestion, outputs } = await suggestAndMap("lead", payloads);
    expect(suggestion.expression).toContain('$phoneE164($default(custom[label="Phone"].value, requester.phone))');
    expect((outputs as Body[]).map((o) => o.phone)).toEqual(["+16125550150", "+16515550112", "+17635550174"]);
  });

  it("decodes a JSON document in a string with $parseJson, bound once", async () => {
    const payloads = [0, 1].map((n) => ({ entry: { id: n, data: JSON.stringify({ contact: formLead(n) }) } }));
    const { suggestion, outputs } = await suggestAndMap("lead", payloads);
    expect(suggestion.expression).toContain("$doc1 := $parseJson(entry.data);");
    expect(suggestion.expression).toContain("$normalizeEmail($doc1.contact.email_address)");
    expect((outputs[0] as Body).email).toBe("avery.castillo@example.com");
    expect(fieldOf(suggestion, "email")?.sourcePath).toBe("$parseJson(entry.data).contact.email_address");
  });

  it("says so in the expression, and reads nothing inside, where the engine has no $parseJson", () => {
    const payloads = [0, 1].map((n) => ({ entry: { id: n, data: JSON.stringify({ contact: formLead(n) }) } }));
    const suggestion = suggestProfile({ kind: "lead", payloads }, { parseJson: false });
    expect(suggestion.expression).not.toContain("$parseJson(entry.data);");
    expect(suggestion.expression).toContain("entry.data holds a JSON document");
    expect(suggestion.missing).toEqual(expect.arrayContaining(["email", "phone"]));
    expect(suggestion.unmapped).toContain("$parseJson(entry.data).contact.email_address");
  });

  it('turns a "Last, First" name around with $splitName', async () => {
    const payloads = ["Nguyen, Linh", "Brooks, Anthony"].map((name, n) => ({ name, email: `p${n}@example.com` }));
    const { outputs } = await suggestAndMap("lead", payloads);
    expect((outputs as Body[]).map((o) => o.fullName)).toEqual(["Linh Nguyen", "Anthony Brooks"]);
  });

  it("lists the paths it did not use, a large payload's in part, and the fields it did not find", () => {
    const payload: Body = { email: "a@example.com" };
    for (let i = 0; i < MAX_UNMAPPED + 50; i++) payload[`extra_${i}`] = `value ${i}`;
    const suggestion = suggestProfile({ kind: "lead", payloads: [payload] });
    expect(suggestion.unmapped).toHaveLength(MAX_UNMAPPED);
    expect(suggestion.unmapped[0]).toBe("extra_0");
    expect(suggestion.unmapped).not.toContain("email");
    expect(suggestion.missing).toEqual(["fullName", "phone", "address", "smsConsent"]);
    expect(suggestion.expression).toContain("/* address: not in the payloads — no street line");
  });

  it("keeps payload names from closing or breaking the comments it writes", () => {
    const payloads = [0, 1].map((n) => ({ "email */ $x := 1; /*": `p${n}@example.com` }));
    const suggestion = suggestProfile({ kind: "lead", payloads });
    expect(compileProfile(suggestion.expression)).toEqual({ ok: true });
    expect(fieldOf(suggestion, "email")?.sourcePath).toBe("`email */ $x := 1; /*`");
  });

  it("suggests from a list whose item's key is an object named like a method", () => {
    // As JSON.parse makes them: `{"toString": 1}` is data, and String() of it throws (the suggester did).
    const payloads = [
      '{"email":[{"name":[[{"toString":1}]]},[{"email":0,"name":0}]]}',
      '{"answers":[{"name":{"toString":1},"value":"x"},{"name":"email","value":"ann@example.com"}]}',
      '{"answers":[{"name":"email","value":"bo@example.com"},{"name":{"valueOf":2},"value":"y"}]}',
    ].map((text) => JSON.parse(text) as Body);
    for (const given of [payloads.slice(0, 1), payloads.slice(1)]) {
      const suggestion = suggestProfile({ kind: "lead", payloads: given });
      expect(compileProfile(suggestion.expression)).toEqual({ ok: true });
      expect(new Set([...suggestion.fields.map((f) => f.field), ...suggestion.missing]).size).toBe(5);
    }
  });
});

describe("a suggested booking profile: the person and the visit as two records (§2.7, §2.8)", () => {
  const bookings = [0, 1, 2].map((n) => ({
    booking: {
      id: `bk_${n}`,
      slot: { start: `2026-10-0${n + 5}T08:00:00-05:00`, end: `2026-10-0${n + 5}T10:00:00-05:00` },
      notes: n === 1 ? "" : `note ${n}`,
    },
    customer: formLead(n),
    created_at: "2026-09-28T21:14:00Z",
  }));

  it("maps a lead record then an appointment record chained on it, both with the booking's id", async () => {
    const { suggestion, outputs } = await suggestAndMap("appointment", bookings);
    expect(compileProfile(suggestion.expression)).toEqual({ ok: true });
    expect(outputs[0]).toEqual([
      {
        kind: "lead",
        id: "bk_0",
        body: {
          fullName: "Avery Castillo",
          email: "avery.castillo@example.com",
          phone: "+15125550142",
          address: "4102 Duval St, Austin, TX 78751",
        },
      },
      {
        kind: "appointment",
        id: "bk_0",
        body: {
          startsAt: "2026-10-05T13:00:00.000Z",
          endsAt: "2026-10-05T15:00:00.000Z",
          notes: "note 0",
          idempotencyKey: "appointment:bk_0",
        },
      },
    ]);
    // The appointment names no leadId: the gateway chains it to the lead record before it (hooks contract).
    expect(mappedOutcome("appointment", outputs[0], () => undefined)).toMatchObject({ ok: true });
    expect((outputs[1] as Body[])[1]?.body).not.toHaveProperty("notes");
    expect(suggestion.fields.map((f) => f.field)).toEqual([
      "lead.fullName",
      "lead.email",
      "lead.phone",
      "lead.address",
      "lead.id",
      "appointment.startsAt",
      "appointment.endsAt",
      "appointment.notes",
      "appointment.idempotencyKey",
      "appointment.id",
    ]);
    expect(suggestion.missing).toEqual(["lead.smsConsent"]);
  });

  it("reads epoch seconds with a length in minutes, and a local date and time in the zone the payload names", async () => {
    const epoch = [0, 1].map((n) => ({
      appt: { uid: `cb-${n}`, start_ts: 1773777600 + n * 86_400, duration_min: 45 },
      client: { displayName: ["Naomi Feldman", "Trevor Banks"][n], mail: `c${n}@example.com` },
    }));
    const a = await suggestAndMap("appointment", epoch);
    expect((a.outputs[1] as Body[])[1]?.body).toMatchObject({
      startsAt: "2026-03-18T20:00:00.000Z",
      endsAt: "2026-03-18T20:45:00.000Z",
    });
    const local = [0, 1].map((n) => ({
      ref: `R-${n}`,
      customer: { name: ["Linh Nguyen", "Ann Brooks"][n], email: `c${n}@example.com` },
      slot: {
        date: ["2026-04-14", "2026-11-03"][n],
        "start-time": "9:30 AM",
        "end-time": "10:15 AM",
        "time-zone": "America/New_York",
      },
    }));
    const b = await suggestAndMap("appointment", local);
    expect((b.outputs as Body[][]).map((o) => o[1]?.body)).toMatchObject([
      { startsAt: "2026-04-14T13:30:00.000Z", endsAt: "2026-04-14T14:15:00.000Z" },
      { startsAt: "2026-11-03T14:30:00.000Z", endsAt: "2026-11-03T15:15:00.000Z" },
    ]);
  });

  it("keys the appointment by the lead's e-mail and the start when the payloads carry no booking id", async () => {
    const { suggestion, outputs } = await suggestAndMap(
      "appointment",
      bookings.map(({ booking, ...rest }) => ({ ...rest, slot: booking.slot })),
    );
    expect(suggestion.missing).toEqual(expect.arrayContaining(["lead.id", "appointment.id"]));
    expect(fieldOf(suggestion, "appointment.idempotencyKey")?.confidence).toBe("guess");
    expect((outputs[0] as Body[])[1]?.body).toMatchObject({
      idempotencyKey: "appointment:avery.castillo@example.com:2026-10-05T13:00:00.000Z",
    });
  });
});
