import { badRequest } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { eraseFromSamples } from "../profiles-admin/erase-samples.js";
import type { PurgedWebhookHistory } from "../storage/webhooks/index.js";
import { notifyEnqueued } from "../webhooks/enqueue.js";
import { type ErasedWebhookCopies, eraseWebhookCopies } from "../webhooks/erase-person.js";
import { eraseSubmissions } from "./erase-submissions.js";
import { personMatch } from "./person-match.js";

const DAY_MS = 86_400_000;

/**
 * Drops raw payloads older than the retention period. Only finished submissions are purged: a queued one still
 * needs its payload for a redrive with another profile version. The webhook history of the same age goes too
 * (finished deliveries, their events, the platform events received: storage/webhooks/retention.ts).
 */
export async function purgeExpiredPayloads({
  ctx,
}: {
  ctx: GatewayContext;
}): Promise<{ purged: number } & PurgedWebhookHistory> {
  const now = ctx.now();
  const cutoffMs = now.getTime() - ctx.settings.retentionDays * DAY_MS;
  const purged = await ctx.submissions.purgePayloadsBefore(cutoffMs, now.toISOString());
  // Captured payloads are raw payloads too (D-317): gone at the same age.
  await ctx.captures.purgeBefore(cutoffMs);
  return { purged, ...(await ctx.webhooks.purgeHistory(cutoffMs, await ctx.tenants.companyIds())) };
}

export { ERASURE_CHUNK } from "../storage/submissions/index.js";

/** What an erasure found and removed. */
export interface Erasure extends ErasedWebhookCopies {
  /** The person's submissions (by contact). */
  erased: number;
  /** Appointment submissions for the person's leads. */
  appointments: number;
  /** Mapping failures whose native payload mentioned the person. */
  mappingFailures: number;
  /** Captured payloads (capture mode, D-317) that mentioned the person. */
  captures: number;
  /** Golden samples of profile versions that mentioned the person, removed from their versions. */
  samples: number;
  /** Whether the WAL was emptied after it (false: another process was reading; its next full checkpoint does it). */
  walTruncated: boolean;
}

/**
 * Erases a person's data (by email or phone) from every copy a company's gateway keeps (docs/decisions.md, "Erasure
 * of every copy"): their submissions and the appointments for their leads (payloads dropped, what was not sent
 * fails), mapping failures, captured payloads and golden samples whose payload mentions them, the webhook events and deliveries about them and the
 * platform events received about them (the person's fields removed; pending deliveries are sent without them). Then
 * the WAL is checkpointed and emptied: with `secure_delete` on, the database file then holds no trace of what was
 * erased. Idempotent, and the person's contact columns are cleared last, so a crash midway is mended by running it
 * again: the rerun finds the person's submissions, and through them every other copy, as the first run did.
 */
export async function erasePerson({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { email?: string; phone?: string };
}): Promise<Erasure> {
  const person = personMatch(input);
  if (!person.email && !person.phone) throw badRequest("email or phone is required", { field: "email" });
  const submissions = await eraseSubmissions(ctx, companyId, person);
  notifyEnqueued(ctx, submissions.enqueued, ctx.now().getTime());
  // Refused payloads have no contact columns: only the text as received is compared.
  const mappingFailures = await ctx.submissions.eraseMappingFailures(companyId, person.mentions);
  const captures = await ctx.captures.eraseMentioning(companyId, person.mentions);
  const samples = await eraseFromSamples(ctx, companyId, person.mentions);
  const webhooks = await eraseWebhookCopies(ctx, companyId, submissions, person.mentions);
  await ctx.submissions.forgetContacts(submissions.submissionIds);
  // No old version of what was erased stays behind (D-241, D-257): SQLite's WAL emptied, PostgreSQL's tables vacuumed.
  const submissionsCompacted = await ctx.submissions.compactAfterErasure();
  const walTruncated = (await ctx.webhooks.compactAfterErasure()) && submissionsCompacted;
  if (!walTruncated) ctx.log.warn({ companyId }, "erasure: the WAL could not be emptied now (a reader held it)");
  return {
    erased: submissions.leads,
    appointments: submissions.appointments,
    mappingFailures,
    captures,
    samples,
    ...webhooks,
    walTruncated,
  };
}
