import { describe, expect, it } from "vitest";
import {
  isBool,
  isEmail,
  isEpochMillis,
  isEpochSeconds,
  isFullAddress,
  isLocalDateTime,
  isPhone,
  isPhoneLike,
  isRegion,
  isStreet,
  isTime,
  isZip,
  isZone,
  isZonedDateTime,
  nameShape,
  shapesOf,
} from "../../../../src/gateway/profiles-admin/suggest/shapes.js";

/** docs/profiles.md, "Suggested profiles": what a value looks like, from the value alone. */
describe("value recognisers: what a value looks like", () => {
  it("knows an e-mail address, also as mailto: or with a display name, and nothing else", () => {
    for (const yes of [
      "ann@example.com",
      " A.B+c@sub.example.co.uk ",
      "mailto:ann@example.org",
      "Ann Lee <ANN@EXAMPLE.COM>",
    ]) {
      expect(isEmail(yes), yes).toBe(true);
    }
    for (const no of ["ann at example dot com", "ann@localhost", "@example.com", "ann@example", "a b@example.com"]) {
      expect(isEmail(no), no).toBe(false);
    }
  });

  it("knows a phone number written as people write one, with an extension or a country code", () => {
    for (const yes of [
      "(512) 555-0123",
      "512.555.0123",
      "+1 512 555 0123",
      "+44 20 7946 0958",
      "5125550123",
      "512-555-0123 ext. 45",
    ]) {
      expect(isPhone(yes), yes).toBe(true);
    }
    expect(isPhone(5125550123)).toBe(true);
  });

  it("does not take a ZIP+4, an IP address, an amount, a date or an epoch for a phone", () => {
    for (const no of [
      "78701-1234",
      "192.168.100.200",
      "1500.00",
      "2026-05-01",
      "1773777600",
      "1785855600000",
      "555",
      "n/a",
    ]) {
      expect(isPhone(no), no).toBe(false);
    }
    expect(isPhone(1773777600)).toBe(false);
    expect(isPhone(1785855600000)).toBe(false);
    // A field named phone may still hold test data's bare digits: the loose shape takes it.
    expect(isPhoneLike("1231231234")).toBe(true);
    expect(isPhoneLike("12345")).toBe(false);
  });

  it("knows ZIP codes (US, Canada, UK) and US states and Canadian provinces by code or name", () => {
    for (const yes of ["78701", "78701-1234", "K1A 0B1", "SW1A 1AA", 90210]) expect(isZip(yes), String(yes)).toBe(true);
    for (const no of ["7870", "787011", 3301, "ABCDE"]) expect(isZip(no), String(no)).toBe(false);
    for (const yes of ["TX", "tx", "New York", "ontario", "QC"]) expect(isRegion(yes), yes).toBe(true);
    for (const no of ["XX", "Texass", "Austin"]) expect(isRegion(no), no).toBe(false);
  });

  it("knows a street line by its house number and street words, and a full address by what follows it", () => {
    for (const yes of [
      "12 Oak St",
      "1520 The Alameda",
      "77 Ranch Road 620 S",
      "2231 Brookhaven Ct",
      "PO Box 44",
      "12 oak street",
    ]) {
      expect(isStreet(yes), yes).toBe(true);
    }
    for (const no of ["3 bedrooms", "15 minutes", "Oak St", "12", "2 hours ago"]) expect(isStreet(no), no).toBe(false);
    expect(isFullAddress("12 Oak St, Austin, TX 78701")).toBe(true);
    expect(isFullAddress("500 Main St Apt 2, Springfield, IL")).toBe(true);
    expect(isFullAddress("12 Oak St")).toBe(false);
    // A city and a state are a region, not an address: no street line, no address.
    expect(isFullAddress("Austin, TX 78701")).toBe(false);
  });

  it("knows a person's name, not a company's nor a yes", () => {
    expect(nameShape("Marisol Okafor")).toBe("personName");
    expect(nameShape("Nguyen, Linh")).toBe("personName");
    expect(nameShape("Rosa Delgado-Finch")).toBe("personName");
    expect(nameShape("José García")).toBe("personName");
    expect(nameShape("Hannah")).toBe("nameWord");
    for (const no of ["Prairie Peak Roofing LLC", "Harbor Island Realty", "Dubois Interiors", "Yes", "N/A", "Apt 4"]) {
      expect(nameShape(no), no).toBeUndefined();
    }
  });

  it("knows times: with an offset (as $localToUtc reads one), local, a date, a time of day, epochs, an IANA zone", () => {
    expect(isZonedDateTime("2026-10-05T08:00:00-05:00")).toBe(true);
    expect(isZonedDateTime("2019-08-24T14:15:22.123456Z")).toBe(true);
    expect(isZonedDateTime("2015-02-28T08:49:14+0000")).toBe(true);
    expect(isZonedDateTime("2026-10-05 08:00:00")).toBe(false);
    expect(isLocalDateTime("2026-09-01 13:30")).toBe(true);
    expect(isLocalDateTime("2026-01-15T07:00:00")).toBe(true);
    expect(isLocalDateTime("2026-02-30 10:00")).toBe(false);
    for (const yes of ["9:30 AM", "14:00", "10:00am"]) expect(isTime(yes), yes).toBe(true);
    for (const no of ["25:00", "13:00 pm", "9"]) expect(isTime(no), no).toBe(false);
    expect(isEpochSeconds(1773777600)).toBe(true);
    expect(isEpochSeconds("1773777600")).toBe(true);
    expect(isEpochMillis(1785855600000)).toBe(true);
    expect(isEpochSeconds(1785855600000)).toBe(false);
    expect(isEpochSeconds(55012)).toBe(false);
    expect(isZone("America/Chicago")).toBe(true);
    expect(isZone("UTC")).toBe(true);
    for (const no of ["Mars/Olympus", "EST", "-05:00", "America"]) expect(isZone(no), no).toBe(false);
  });

  it("knows a yes or no as $toBool reads one, a blank saying nothing", () => {
    for (const yes of [true, false, 0, 1, "yes", "N", "on", "checked", "Unchecked", "agreed"]) {
      expect(isBool(yes), String(yes)).toBe(true);
    }
    for (const no of ["", "maybe", "Text", 2]) expect(isBool(no), String(no)).toBe(false);
  });

  it("gives a value every shape it has, and a blank none", () => {
    expect([...shapesOf("2026-05-03")]).toEqual(expect.arrayContaining(["date", "id"]));
    expect(shapesOf("12 Oak St, Austin, TX 78701").has("fullAddress")).toBe(true);
    expect(shapesOf("12 Oak St, Austin, TX 78701").has("street")).toBe(true);
    expect(shapesOf("").size).toBe(0);
    expect(shapesOf(null).size).toBe(0);
  });
});
