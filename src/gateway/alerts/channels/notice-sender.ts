import { newEventId } from "../../../contract/webhook-envelope.js";
import { newId } from "../../../ids.js";
import type { Logger } from "../../../log.js";
import type { GuardedFetch } from "../../../net/index.js";
import type { AlertNoticeRow, AlertRow, AlertStore, NoticeTry } from "../../storage/alerts/index.js";
import { makeNotice, type Notice } from "../notice.js";
import type { AlertSettings, ChannelName } from "../settings.js";
import { slackMessage, teamsMessage } from "./chat.js";
import type { AlertMailer } from "./email.js";
import { operationalRequest } from "./operational-webhook.js";

export interface NoticeSenderOptions {
  /** Every POST (the operational webhook, Slack, Teams) goes through the SSRF guard of the webhooks (D-345). */
  fetch: GuardedFetch;
  /** Undefined: SMTP_URL is not set, and e-mail is skipped. */
  mailer: AlertMailer | undefined;
  log: Logger;
  /** Delays before a failed notice's next tries on a channel (§6.4's first steps by default). */
  retrySchedule: readonly number[];
  /** The gateway's public URL: the console links. */
  publicUrl: () => string;
  /** The alerts record, and the outage retry its statements run through (D-338). */
  alerts: AlertStore;
  store: <T>(step: () => Promise<T>) => Promise<T>;
}

export interface ChannelOutcome {
  channel: ChannelName;
  ok: boolean;
  error?: string;
}

/** How long a try holds an owed notice (past the 10 s limit of a POST and an SMTP exchange): a crash frees it then. */
export const NOTICE_LEASE_MS = 60_000;

/**
 * Sends an alert's notices to the channels its severity is routed to (D-343), from the database (D-347): a notice owed
 * to a channel is a row written with the claim that decided it is sent, tried at once, deleted once the channel took
 * it, and otherwise tried again on the retry schedule — by whichever process's evaluator finds it due, after a restart
 * too (at least once per notice and channel; the event id lets a receiver recognise a repeat). The console needs no
 * sending: it reads the alerts.
 */
export class NoticeSender {
  readonly #options: NoticeSenderOptions;

  constructor(options: NoticeSenderOptions) {
    this.#options = options;
  }

  /** The rows of one notice, one per channel routed and set up, held by this process's first try. */
  owed(
    settings: AlertSettings,
    alert: AlertRow,
    event: Notice["event"],
    reminder: boolean,
    nowMs: number,
  ): AlertNoticeRow[] {
    const eventId = newEventId();
    const channels = settings.routes[alert.severity].filter((c) => this.#configured(settings, c));
    return channels.map((channel) => ({
      id: newId("ant", nowMs),
      companyId: alert.companyId,
      alertId: alert.id,
      event,
      eventId,
      reminder,
      channel,
      attempts: 0,
      nextAttemptAt: nowMs + NOTICE_LEASE_MS,
      lastError: null,
      createdAt: new Date(nowMs).toISOString(),
    }));
  }

  /** Tries owed notices this process holds (their claim: `nextAttemptAt`), each channel once, and records how it went. */
  async send(settings: AlertSettings, alert: AlertRow, rows: readonly AlertNoticeRow[]): Promise<ChannelOutcome[]> {
    return Promise.all(rows.map((row) => this.#tryOwed(settings, alert, row)));
  }

  /** Each channel's row for a notice: a configured channel, else dropped (turned off since the notice was owed). */
  configured(settings: AlertSettings, channel: ChannelName): boolean {
    return this.#configured(settings, channel);
  }

  #configured(settings: AlertSettings, channel: ChannelName): boolean {
    if (channel === "email") return settings.email !== null && this.#options.mailer !== undefined;
    return settings[channel] !== null;
  }

  async #tryOwed(settings: AlertSettings, alert: AlertRow, row: AlertNoticeRow): Promise<ChannelOutcome> {
    const notice = makeNotice(row.event, alert, this.#options.publicUrl(), row.reminder, row.eventId);
    const outcome = await this.#try(settings, row.channel, notice);
    const attempts = row.attempts + 1;
    const delay = this.#options.retrySchedule[attempts - 1];
    const end: NoticeTry = outcome.ok
      ? { sent: true }
      : {
          sent: false,
          attempts,
          nextAttemptAt: delay === undefined ? null : Date.now() + delay,
          error: outcome.error ?? "failed",
        };
    if (!end.sent && end.nextAttemptAt === null) {
      this.#options.log.warn(
        { alertId: alert.id, channel: row.channel, attempts, error: end.error },
        "alert notice given up after its last try",
      );
    }
    // The channel's answer is kept until it is recorded: an outage of the database waits, it does not resend (D-338).
    await this.#options.store(() => this.#options.alerts.endNotice(row.id, row.nextAttemptAt, end));
    return outcome;
  }

  async #try(settings: AlertSettings, channel: ChannelName, notice: Notice): Promise<ChannelOutcome> {
    try {
      await this.#deliver(settings, channel, notice);
      this.#options.log.info({ alertId: notice.alert.id, event: notice.event, channel }, "alert notice sent");
      return { channel, ok: true };
    } catch (error) {
      const message = error instanceof Error ? error.message : "failed";
      this.#options.log.warn({ alertId: notice.alert.id, channel, error: message }, "alert notice not sent");
      return { channel, ok: false, error: message };
    }
  }

  async #deliver(settings: AlertSettings, channel: ChannelName, notice: Notice): Promise<void> {
    if (channel === "email") {
      if (!settings.email || !this.#options.mailer) throw new Error("e-mail is not set up");
      await this.#options.mailer.send(settings.email.to, notice);
      return;
    }
    if (channel === "webhook") {
      if (!settings.webhook) throw new Error("the webhook is not set up");
      const { body, headers } = operationalRequest(notice, settings.webhook.secret, Date.now());
      return this.#post(settings.webhook.url, body, headers);
    }
    const chat = channel === "slack" ? settings.slack : settings.teams;
    if (!chat) throw new Error(`${channel} is not set up`);
    const message = channel === "slack" ? slackMessage(notice) : teamsMessage(notice);
    return this.#post(chat.url, JSON.stringify(message), { "content-type": "application/json" });
  }

  async #post(url: string, body: string, headers: Record<string, string>): Promise<void> {
    const response = await this.#options.fetch.fetch(url, { method: "POST", headers, body });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  }
}
