import { createGuardedFetch, type GuardedFetch } from "../../net/index.js";
import type { GatewayContext } from "../context.js";
import { type OutageRetry, OutageRetryClosedError } from "../outage/index.js";
import { AlertMailer, type SmtpSettings } from "./channels/email.js";
import { NoticeSender } from "./channels/notice-sender.js";
import { sendDueNotices } from "./due-notices.js";
import { evaluateCompany } from "./evaluate-company.js";
import { notifyCompany } from "./notify-company.js";
import { alertSettingsOf } from "./settings.js";

export interface AlertOptions {
  /** How often every company is evaluated (default 15 s). */
  intervalMs?: number;
  /** SMTP_URL and ALERT_EMAIL_FROM: without them, e-mail is skipped. */
  smtp?: SmtpSettings | undefined;
  /** Delays before a failed notice's next tries on a channel (default 10 s, 1 min, 5 min). */
  retrySchedule?: readonly number[];
  /** Off: no evaluator in this process (tests of other parts; a process that only forwards). */
  enabled?: boolean;
}

export const DEFAULT_ALERT_INTERVAL_MS = 15_000;
const DEFAULT_NOTICE_RETRY_MS = [10_000, 60_000, 300_000];

/**
 * The alert evaluator (docs/alerts.md, D-342): every `intervalMs`, each company's conditions are computed from the
 * database, its alerts brought in line and its notices sent, then the notices owed to a channel that are due again
 * are tried (D-347). Every API process runs one: evaluations are idempotent (one live alert per condition and
 * resource, a unique index) and every notice is claimed in the database before it is sent, so two processes never
 * open an alert twice nor send a notice twice — no election is needed. One evaluation at a time per process; a slow
 * one delays the next, never overlaps it. An outage of the database is waited out (D-338): the company's evaluation
 * under way is run again whole once the database answers (logged once per outage), and a channel's answer waits to
 * be recorded rather than being sent again.
 */
export class AlertEvaluator {
  readonly #ctx: GatewayContext;
  readonly #intervalMs: number;
  readonly #fetch: GuardedFetch;
  readonly #mailer: AlertMailer | undefined;
  readonly #sender: NoticeSender;
  readonly #closedSignal = new AbortController();
  readonly #outage: OutageRetry;
  readonly #outcomes: OutageRetry;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(ctx: GatewayContext, options: AlertOptions = {}) {
    this.#ctx = ctx;
    this.#intervalMs = options.intervalMs ?? DEFAULT_ALERT_INTERVAL_MS;
    this.#outage = ctx.outages.retry({ name: "alert evaluator", signal: this.#closedSignal.signal });
    this.#outcomes = ctx.outages.retry({ name: "alert notice outcomes", signal: this.#closedSignal.signal });
    // The webhooks' SSRF policy, their allow-list included: started after them (create-gateway.ts).
    this.#fetch = createGuardedFetch({ policy: ctx.running.outboundPolicy });
    this.#mailer = options.smtp ? new AlertMailer(options.smtp) : undefined;
    this.#sender = new NoticeSender({
      fetch: this.#fetch,
      mailer: this.#mailer,
      log: ctx.log,
      retrySchedule: options.retrySchedule ?? DEFAULT_NOTICE_RETRY_MS,
      publicUrl: () => ctx.settings.publicUrl,
      alerts: ctx.alerts,
      store: (step) => this.#outcomes.run(step),
    });
  }

  start(): void {
    this.#schedule(0);
  }

  /** One evaluation of every company now (after the one under way, if any). */
  async evaluate(): Promise<void> {
    const previous = this.#running ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.#evaluateAll());
    this.#running = run;
    try {
      await run;
    } finally {
      if (this.#running === run) this.#running = undefined;
    }
  }

  /** Stops: an evaluation waiting for the database gives up (what it owed is in the database, for the next start). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#closedSignal.abort();
    await this.#running?.catch(() => undefined);
    this.#fetch.close();
    this.#mailer?.close();
  }

  #schedule(delay: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(async () => {
      await this.evaluate().catch((error: unknown) => {
        if (!(error instanceof OutageRetryClosedError)) this.#ctx.log.error({ err: error }, "alert evaluation failed");
      });
      this.#schedule(this.#intervalMs);
    }, delay);
    this.#timer.unref();
  }

  async #evaluateAll(): Promise<void> {
    const wait = <T>(step: () => Promise<T>) => this.#outage.run(step);
    for (const companyId of await wait(() => this.#ctx.tenants.companyIds())) {
      if (this.#closed) return;
      try {
        await wait(async () => {
          const settings = await alertSettingsOf(this.#ctx, companyId);
          await evaluateCompany(this.#ctx, companyId, settings.thresholds);
          await notifyCompany(this.#ctx, companyId, settings, this.#sender);
        });
      } catch (error) {
        if (error instanceof OutageRetryClosedError) throw error;
        this.#ctx.log.error({ err: error, companyId }, "alert evaluation of a company failed");
      }
    }
    if (!this.#closed) await wait(() => sendDueNotices(this.#ctx, this.#sender));
  }
}
