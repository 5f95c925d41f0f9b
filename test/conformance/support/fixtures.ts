import { randomBytes } from "node:crypto";

/**
 * Literal fixtures written from the spec's numbers (§2.7, §2.8, §4.2, §8), never derived from the project's schemas:
 * a wrong schema must not be able to pass its own tests. Each length is checked where it is built.
 */
function exactly(length: number, text: string): string {
  if ([...text].length !== length) throw new Error(`fixture is ${[...text].length} characters, wanted ${length}`);
  return text;
}

/** A run token keeps addresses and idempotency keys unique when the suite runs against a shared deployment. */
export const RUN = String(Date.now() % 1_000_000_000);

/** Digits only, so address normalisation leaves it as it is. */
export function uniqueNumber(): string {
  return `${RUN}${randomBytes(3).readUIntBE(0, 3)}`;
}

export const NAME_1 = exactly(1, "Q");
export const NAME_120 = exactly(120, `Maria ${"A".repeat(105)} Gonzalez`);
export const NAME_121 = exactly(121, `Maria ${"A".repeat(106)} Gonzalez`);
/** Characters, not bytes: 120 two-byte letters are still 120 characters. */
export const NAME_120_ACCENTED = exactly(120, "É".repeat(120));

/** 64 + 1 + 189 = 254 characters: the longest allowed email. */
export const EMAIL_254 = exactly(254, `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`);
export const EMAIL_255 = exactly(255, `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`);

export const PHONE_7 = exactly(7, "555 010");
export const PHONE_6 = exactly(6, "555010");
export const PHONE_40 = exactly(40, "+1 (602) 555-0100 ".padEnd(40, "0"));
export const PHONE_41 = exactly(41, "+1 (602) 555-0100 ".padEnd(41, "0"));
export const PHONE_WITH_LETTERS = "555-CALL-NOW";
export const PHONE_WITH_DOTS = "602.555.0100";

export const ADDRESS_2 = exactly(2, "1A");
export const ADDRESS_3 = exactly(3, "1 A");
/** A 500-character address, unique per call. */
export function address500(): string {
  const line = `${uniqueNumber()} Conformance Way, Phoenix, AZ 85004 `;
  return exactly(500, line.padEnd(500, "x"));
}
export function address501(): string {
  return exactly(501, `${address500()}x`);
}

export const NOTES_500 = exactly(500, "n".repeat(500));
export const NOTES_501 = exactly(501, "n".repeat(501));

/** idempotencyKey: 8 to 160 characters (§2.8, §8); random so runs never collide. */
export function idempotencyKey(length: number): string {
  return exactly(length, randomBytes(length).toString("hex").slice(0, length));
}

export const NOTE_1 = exactly(1, "k");
export const NOTE_2000 = exactly(2000, "Crew on site; ".repeat(143).slice(0, 2000));
export const NOTE_2001 = exactly(2001, "Crew on site; ".repeat(143).slice(0, 2001).padEnd(2001, "!"));

/** An appointment window (§2.8): one hour, UTC with Z (§8 Time). */
export const STARTS_AT = "2026-10-01T15:00:00Z";
export const ENDS_AT = "2026-10-01T16:00:00Z";
export const BEFORE_START = "2026-10-01T14:00:00Z";
export const WITH_OFFSET = "2026-10-01T17:00:00+02:00";
export const WITHOUT_ZONE = "2026-10-01T16:00:00";

/** A valid §2.7 lead at a fresh address. */
export function newLead(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    fullName: "Jordan Example",
    email: "jordan@example.com",
    phone: "+1 (602) 555-0100",
    address: `${uniqueNumber()} Conformance Way, Phoenix, AZ 85004`,
    ...overrides,
  };
}
