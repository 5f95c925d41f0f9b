/** A platform event as the sandbox records it, before it is fanned out to the subscriptions (fan-out.ts). */
export interface RecordedEvent {
  id: string;
  companyId: string;
  partnerCompanyId: string | null;
  originKeyId: string | null;
  event: string;
  resource: { type: string; id: string; version: number };
  /** The platform's full record of the event; each recipient gets its partner type's view of it (§1). */
  data: Record<string, unknown>;
  occurredAt: string;
}
