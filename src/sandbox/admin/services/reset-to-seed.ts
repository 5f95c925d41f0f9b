import { isoAt } from "../../clock.js";
import type { SandboxCtx } from "../../context.js";
import {
  apiKeys,
  appointments,
  companies,
  contractors,
  events,
  idempotencyRecords,
  installDocuments,
  installEvidence,
  installFeed,
  installJobs,
  leadSubmissions,
  leads,
  ownerAccounts,
  ownerSessions,
  partners,
  people,
  projectNotes,
  projects,
  salesPipelines,
  technicians,
  webhookAttempts,
  webhookDeliveries,
  webhookSubscriptions,
} from "../../db/schema/index.js";
import { applySeed } from "../../seed/apply-seed.js";
import type { Seed } from "../../seed/seed-schema.js";
import { ensureSeedOwners } from "../../webhooks/session/owner-accounts.js";

/**
 * §1: the test environment is "reset without notice". Empties every table (webhook subscriptions and owner sessions
 * too; seeded owner logins come back with their fixed passwords), children first since foreign keys are on, and
 * applies the seed, in one transaction: a concurrent reader sees the old state or the new one, never half of each.
 * The change feed's sequences go on from where they were (AUTOINCREMENT keeps its high-water mark across deletes), so
 * a cursor stored before the reset never skips what the seed puts back (§4.1).
 */
export function resetToSeed({ ctx, input }: { ctx: SandboxCtx; input: { seed: Seed } }): void {
  const now = isoAt(ctx.clock);
  ctx.db.transaction((tx) => {
    for (const table of [
      webhookAttempts,
      webhookDeliveries,
      webhookSubscriptions,
      ownerSessions,
      ownerAccounts,
      events,
      idempotencyRecords,
      installFeed,
      installEvidence,
      installDocuments,
      installJobs,
      technicians,
      appointments,
      projectNotes,
      leadSubmissions,
      salesPipelines,
      projects,
      leads,
      apiKeys,
      partners,
      contractors,
      people,
      companies,
    ]) {
      tx.delete(table).run();
    }
    applySeed(tx, input.seed, now);
    ensureSeedOwners(tx, now);
  });
}

/** A fresh file or `:memory:` database is seeded once; a file that already holds state keeps it across restarts. */
export function seedIfEmpty({ ctx, input }: { ctx: SandboxCtx; input: { seed: Seed } }): boolean {
  const any = ctx.db.select({ id: companies.id }).from(companies).limit(1).get();
  if (any) return false;
  resetToSeed({ ctx, input });
  return true;
}
