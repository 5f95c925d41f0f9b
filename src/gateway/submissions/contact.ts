/**
 * A lead's contact as a submission keeps it beside the payload, so that an owner can erase a person's data (retention,
 * docs/decisions.md "Erasure of every copy"): the e-mail trimmed and lower-cased, the phone's digits.
 */
export function contactOf(kind: "lead" | "appointment", body: Record<string, unknown> | null) {
  if (kind !== "lead" || body === null) return { contactEmail: null, contactPhone: null };
  const { email, phone } = body;
  return {
    contactEmail: typeof email === "string" ? email.trim().toLowerCase() : null,
    contactPhone: typeof phone === "string" ? phone.replace(/[^0-9]/g, "") : null,
  };
}
