import { text } from "./text.js";

/**
 * A country's numbering plan, as much of it as turning a national number into E.164 needs: the calling code, the
 * trunk prefix dialled before national numbers (the UK's leading 0), and the length of the national significant
 * number. Not a full validator (that is libphonenumber's job, a dependency this service does not take): a number that
 * fits the shape is normalised, anything else is left as its digits for the canonical schema to judge.
 */
interface NumberingPlan {
  callingCode: string;
  trunkPrefix: string;
  lengths: readonly [number, number];
  /** NANP: area code and exchange both start 2–9. */
  pattern?: RegExp;
}

const NANP: NumberingPlan = {
  callingCode: "1",
  trunkPrefix: "1",
  lengths: [10, 10],
  pattern: /^[2-9]\d{2}[2-9]\d{6}$/,
};

const PLANS: Readonly<Record<string, NumberingPlan>> = {
  US: NANP,
  CA: NANP,
  PR: NANP,
  GB: { callingCode: "44", trunkPrefix: "0", lengths: [9, 10] },
  IE: { callingCode: "353", trunkPrefix: "0", lengths: [7, 9] },
  AU: { callingCode: "61", trunkPrefix: "0", lengths: [9, 9] },
  NZ: { callingCode: "64", trunkPrefix: "0", lengths: [8, 10] },
  DE: { callingCode: "49", trunkPrefix: "0", lengths: [6, 13] },
  FR: { callingCode: "33", trunkPrefix: "0", lengths: [9, 9] },
  NL: { callingCode: "31", trunkPrefix: "0", lengths: [9, 9] },
  BE: { callingCode: "32", trunkPrefix: "0", lengths: [8, 9] },
  ES: { callingCode: "34", trunkPrefix: "", lengths: [9, 9] },
  // Italy keeps the leading 0 of landlines in international form, so it has no trunk prefix to strip.
  IT: { callingCode: "39", trunkPrefix: "", lengths: [6, 11] },
  MX: { callingCode: "52", trunkPrefix: "", lengths: [10, 10] },
  IN: { callingCode: "91", trunkPrefix: "0", lengths: [10, 10] },
};

/** "UK" is not an ISO 3166 code, but it is what people type. */
const ALIASES: Readonly<Record<string, string>> = { UK: "GB" };

export const PHONE_COUNTRIES = Object.keys(PLANS);

/** E.164: a + then at most 15 digits, the first of which (the country code) is not 0. */
const E164_DIGITS = /^[1-9]\d{6,14}$/;
const MAX_INPUT = 64;
const EXTENSION = /\s*(?:ext\.?|extension|x|#)\s*\d{1,6}\s*$/i;

/**
 * `$phoneE164(s, country)` → `"+15125550123"`. `country` (ISO 3166 alpha-2, default `"US"`) says how to read a
 * number written without its country code. Numbers with `+` or an international prefix (`00`, and `011` in NANP)
 * keep their own country. An extension (`x12`, `ext. 12`) is dropped: §2.7's phone has no place for it. When the
 * number cannot be normalised it comes back as its digits (a leading + kept), and text without digits comes back
 * unchanged, so the canonical validation reports the vendor's real value.
 */
export function phoneE164(value: unknown, country?: unknown): string | undefined {
  const raw = text(value)?.trim();
  if (raw === undefined || raw === "") return undefined;
  // Nothing this long is a phone number, and the patterns below need not be proven linear on megabytes of text.
  if (raw.length > MAX_INPUT) return raw;
  // "+44 (0)20 7946 0958": the (0) is the trunk prefix, written for national callers, not part of the number.
  const dialled = raw.replace(EXTENSION, "").replace(/^(\+\d{1,3})\s*\(0\)/, "$1");
  const digits = dialled.replace(/\D/g, "");
  if (digits === "") return raw;
  const plusSign = dialled.startsWith("+");
  const fallback = (plusSign ? "+" : "") + digits;

  const requested = text(country)?.trim().toUpperCase() || "US";
  const plan = PLANS[ALIASES[requested] ?? requested];
  const international = plusSign
    ? digits
    : digits.startsWith("00")
      ? digits.slice(2)
      : plan === NANP && digits.startsWith("011")
        ? digits.slice(3)
        : undefined;
  if (international !== undefined) return E164_DIGITS.test(international) ? `+${international}` : fallback;
  if (!plan) return fallback;

  const national = nationalNumber(digits, plan);
  return national === undefined ? fallback : `+${plan.callingCode}${national}`;
}

function nationalNumber(digits: string, plan: NumberingPlan): string | undefined {
  const candidates = [digits];
  if (plan.trunkPrefix && digits.startsWith(plan.trunkPrefix)) candidates.push(digits.slice(plan.trunkPrefix.length));
  // A vendor that dropped the + but kept the country code: "447700900123".
  if (digits.startsWith(plan.callingCode)) candidates.push(digits.slice(plan.callingCode.length));
  const [min, max] = plan.lengths;
  return candidates.find((n) => n.length >= min && n.length <= max && fits(n, plan));
}

function fits(national: string, plan: NumberingPlan): boolean {
  if (plan.pattern) return plan.pattern.test(national);
  // Without a trunk prefix (Italy, Spain, Mexico) a leading 0 is part of the number; with one, it is not.
  return plan.trunkPrefix === "" || !national.startsWith(plan.trunkPrefix);
}
