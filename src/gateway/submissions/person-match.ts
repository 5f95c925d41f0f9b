/**
 * The person an erasure is about, by e-mail address or phone number (§2.7 fields), and how to recognise them in text
 * the gateway stored without contact columns: a native payload refused by a guardrail, a platform event's body.
 */
export interface PersonMatch {
  /** Trimmed and lower-cased, as intake stores `contact_email`. */
  email: string | undefined;
  /** Digits only, as intake stores `contact_phone`. */
  phone: string | undefined;
  /** Whether a stored text mentions the person. */
  mentions(text: string): boolean;
}

export function personMatch(input: { email?: string | undefined; phone?: string | undefined }): PersonMatch {
  const email = input.email?.trim().toLowerCase() || undefined;
  const phone = input.phone?.replace(/[^0-9]/g, "") || undefined;
  const phonePattern = phone ? digitsPattern(phone) : undefined;
  return {
    email,
    phone,
    mentions: (text) =>
      (email !== undefined && text.toLowerCase().includes(email)) || phonePattern?.test(text) === true,
  };
}

/**
 * A phone number as a vendor may have written it: its digits in order with up to three separators between two
 * (spaces, dashes, dots, brackets, `+`), whole (no digit before or after); without the country code too when the
 * number has one (the last ten digits of a longer number). Best effort by nature: text has no phone field to compare.
 */
function digitsPattern(digits: string): RegExp {
  const spaced = (d: string) => d.split("").join("[^0-9]{0,3}");
  const forms = [spaced(digits), ...(digits.length > 10 ? [spaced(digits.slice(-10))] : [])];
  return new RegExp(`(?<![0-9])(?:${forms.join("|")})(?![0-9])`);
}
