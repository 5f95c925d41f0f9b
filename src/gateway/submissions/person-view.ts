/**
 * Who a submission is about, as the owner's log shows it (D-318): the person's name, and their e-mail and phone
 * masked — enough to recognise the person an owner is asked about, not enough to read their contact off a screen.
 * A lead's own fields; an appointment names a lead, not a person (null).
 */
export function personOf(body: Record<string, unknown> | null) {
  if (body === null) return null;
  const { fullName, email, phone } = body;
  if (typeof fullName !== "string" && typeof email !== "string" && typeof phone !== "string") return null;
  return {
    name: typeof fullName === "string" ? fullName : null,
    email: typeof email === "string" ? maskEmail(email) : null,
    phone: typeof phone === "string" ? maskPhone(phone) : null,
  };
}

/** `zeb.quixotewell@example.com` → `z***@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** `+1 512-555-0187` → `***0187`: its last four digits. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/[^0-9]/g, "");
  return digits.length <= 4 ? "***" : `***${digits.slice(-4)}`;
}
