import type { SandboxCtx } from "../context.js";
import type { FaultInjector } from "../faults/fault-injector.js";
import { type LimitsConfig, type LimitsOverride, resolveLimits } from "../limits/config.js";
import type { RateLimiter } from "../limits/limiter.js";
import type { Seed } from "../seed/seed-schema.js";
import type { TrafficStats } from "../traffic-stats.js";
import type { WebhookDispatcher } from "../webhooks/dispatcher/dispatcher.js";
import { issueSession, type OwnerSession } from "../webhooks/session/sessions.js";
import { InstallJobsAdmin } from "./install-jobs-admin.js";
import { type CreatedCompany, createCompany, type NewCompany } from "./services/create-company.js";
import { type CreatedKey, createKey, type NewKey } from "./services/create-key.js";
import { type EventEnvelope, listEvents } from "./services/list-events.js";
import { type MovedAppointment, moveAppointment } from "./services/move-appointment.js";
import { type ChangedPipeline, changePipeline } from "./services/pipeline/change-pipeline.js";
import type { PipelineChange } from "./services/pipeline/changes.js";
import { readLead } from "./services/read-lead.js";
import { readStats, type SandboxStats } from "./services/read-stats.js";
import { resetToSeed } from "./services/reset-to-seed.js";
import { revokeKey } from "./services/revoke-key.js";

/**
 * The sandbox's admin face, shared by the admin HTTP routes and by code that embeds the sandbox (tests, the
 * gateway's `serve`). Everything here exists only in the sandbox.
 */
export class SandboxAdmin {
  /** The company's side of install jobs (§2.1, §3.1, §6.7): create, assign, cancel, scope, readiness, … */
  readonly installJobs: InstallJobsAdmin;

  constructor(
    readonly ctx: SandboxCtx,
    readonly limiter: RateLimiter,
    readonly traffic: TrafficStats,
    readonly faults: FaultInjector,
    private readonly seed: Seed,
    /** Sends the webhook deliveries events queue (§6); woken after admin changes so they leave at once. */
    readonly webhooks: WebhookDispatcher,
  ) {
    this.installJobs = new InstallJobsAdmin(ctx, () => webhooks.wake());
  }

  /** §1 "reset without notice": back to the seed; limiter windows, counters and faults start afresh too. */
  reset(): void {
    resetToSeed({ ctx: this.ctx, input: { seed: this.seed } });
    this.limiter.reconfigure(this.limiter.limits);
    this.traffic.clear();
    this.faults.clear();
  }

  get limits(): LimitsConfig {
    return this.limiter.limits;
  }

  /** Changes limits at run time (benchmarks); unnamed levels keep their current values, every window restarts. */
  setLimits(override: LimitsOverride): LimitsConfig {
    const next = resolveLimits({ ...this.limiter.limits, ...override });
    this.limiter.reconfigure(next);
    return next;
  }

  createCompany(input: NewCompany): CreatedCompany {
    return createCompany({ ctx: this.ctx, input });
  }

  createKey(input: NewKey): CreatedKey {
    return createKey({ ctx: this.ctx, input });
  }

  revokeKey(keyId: string): { keyId: string; revokedAt: string } {
    return revokeKey({ ctx: this.ctx, input: { keyId } });
  }

  moveAppointment(input: { appointmentId: string; startsAt: string; endsAt: string }): MovedAppointment {
    const moved = moveAppointment({ ctx: this.ctx, input });
    this.webhooks.wake();
    return moved;
  }

  /** One change of a lead's sales pipeline with its §6.7 event(s), as the platform's sales app would record it. */
  changePipeline(leadId: string, change: PipelineChange): ChangedPipeline {
    const changed = changePipeline({ ctx: this.ctx, input: { leadId, change } });
    this.webhooks.wake();
    return changed;
  }

  /** Shorthand of changePipeline for tests: `{leadId, event, …fields}`. */
  emitLeadEvent(input: { leadId: string } & PipelineChange): ChangedPipeline {
    const { leadId, ...change } = input;
    return this.changePipeline(leadId, change);
  }

  /** An owner session for a company without its password (§5.7; embedding code and tests). */
  ownerSession(companyId: string): OwnerSession {
    return issueSession({ ctx: this.ctx, input: { companyId } });
  }

  events(input: { afterSequence?: number; companyId?: string; limit?: number } = {}): EventEnvelope[] {
    return listEvents({ ctx: this.ctx, input: { ...input, limit: input.limit ?? 1000 } });
  }

  lead(leadId: string): ReturnType<typeof readLead> {
    return readLead({ ctx: this.ctx, input: { leadId } });
  }

  stats(): SandboxStats {
    return readStats({ ctx: this.ctx, input: { traffic: this.traffic, limits: this.limiter.limits } });
  }
}
