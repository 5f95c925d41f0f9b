import { z } from "zod";
import { coordinationKeys } from "../../coordination/index.js";
import type { Admissible } from "../../storage/submissions/index.js";
import { chainedLead } from "../upstream-request.js";

export { DEFAULT_PREFIX } from "../../coordination/index.js";

/** Names in Redis, all under one prefix (one per deployment; one per test). */
export function forwardingKeys(prefix: string) {
  const shared = coordinationKeys(prefix);
  return {
    /** The dispatcher's lock (coordination/keys.ts). */
    leader: shared.forwardingLeader,
    /** A limiter node's history: a sorted set of sends scored by answer time (in flight: the latest arrival). */
    log: (node: string) => `${prefix}:fwd:log:${node}`,
    logs: `${prefix}:fwd:log:*`,
    logPrefix: `${prefix}:fwd:log:`,
    /** Worker processes alive: member = instance id, score = until when (renewed with the lock's time to live). */
    workers: `${prefix}:fwd:workers`,
    /** The pause board (coordination/pause-board.ts). */
    pauses: shared.pauses,
    /** Pub/sub: a submission was committed (intake, redrive): wakes the dispatcher (`acceptedMessage`). */
    accepted: `${prefix}:fwd:accepted`,
    /** Pub/sub: a credential was rotated: the dispatcher reconciles. */
    rotated: `${prefix}:fwd:rotated`,
    /** Pub/sub: a submission settled (forwarded or failed): wakes sync answers in API processes. */
    settled: `${prefix}:fwd:settled`,
    /** Pub/sub: a worker enqueued webhook deliveries (coordination/keys.ts). */
    webhooksDue: shared.webhooksDue,
    /** The BullMQ queue of reserved sends (BullMQ puts its own keys under `prefix`). */
    sendQueue: "forward-send",
  };
}

export type ForwardingKeys = ReturnType<typeof forwardingKeys>;

export { parseWebhookDue, webhookDueMessage } from "../../coordination/index.js";

/**
 * The `accepted` notice: what the dispatcher needs to admit a committed, queued submission, so that it need not read
 * the row back (during a burst, one read per submission competed with the sends for the database). The claim before
 * each send still reads the database, which stays the source of truth: a notice that is stale by then sends nothing.
 */
const acceptedSchema = z.object({
  id: z.string().startsWith("sub_"),
  kind: z.enum(["lead", "appointment"]),
  companyId: z.string(),
  credentialId: z.string(),
  nextAttemptAt: z.number().nullable(),
  /** The lead an appointment waits for (appointment chaining), the one part of its body admission reads. */
  leadId: z.string().optional(),
});

export function acceptedMessage(row: Admissible): string {
  const leadId = chainedLead(row);
  const { id, kind, companyId, credentialId, nextAttemptAt } = row;
  return JSON.stringify({ id, kind, companyId, credentialId, nextAttemptAt, ...(leadId ? { leadId } : {}) });
}

/** The notice's submission, admissible as it was committed; a bare id (a process of an earlier release) gives the id. */
export function parseAccepted(message: string): Admissible | string {
  if (!message.startsWith("{")) return message;
  const { leadId, ...row } = acceptedSchema.parse(JSON.parse(message));
  return { ...row, canonicalBody: leadId ? { leadId } : null };
}
