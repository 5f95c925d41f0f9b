/**
 * The example body of a key without a profile, which takes the canonical record itself (§2.7/§2.8). Checked against
 * the canonical schemas by the posting docs' tests, so it cannot show a body intake would refuse. A `leadId` is the
 * platform's `lead_…` id or the `submissionId` of a lead this key sent.
 */
export const CANONICAL_EXAMPLES = {
  lead: {
    fullName: "Ada Lovelace",
    email: "ada@example.com",
    phone: "+1 (555) 010-2000",
    address: "12 Analytical Way, Springfield, IL 62701",
    smsConsent: true,
  },
  appointment: {
    leadId: "lead_7Qm2xK9pL4",
    startsAt: "2030-01-31T15:00:00Z",
    endsAt: "2030-01-31T16:00:00Z",
    notes: "Gate code 1234",
    idempotencyKey: "booking-20300131-0001",
  },
} as const;
