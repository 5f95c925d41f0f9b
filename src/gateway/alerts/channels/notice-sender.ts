import type { Logger } from "../../../log.js";
import type { GuardedFetch } from "../../../net/index.js";
import type { Notice } from "../notice.js";
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
  /** Delays before a failed channel's next tries (§6.4's first steps by default). */
  retrySchedule: readonly number[];
}

export interface ChannelOutcome {
  channel: ChannelName;
  ok: boolean;
  error?: string;
}

/**
 * Sends a notice to the channels its severity is routed to (D-343): each set-up channel once now, and a failed one
 * again on the retry schedule in the background while the process runs (at least once per notice and channel; the
 * event id lets a receiver recognise a repeat). The console needs no sending: it reads the alerts.
 */
export class NoticeSender {
  readonly #options: NoticeSenderOptions;
  readonly #retries = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(options: NoticeSenderOptions) {
    this.#options = options;
  }

  async send(settings: AlertSettings, notice: Notice): Promise<ChannelOutcome[]> {
    const channels = settings.routes[notice.alert.severity].filter((c) => this.#configured(settings, c));
    return Promise.all(
      channels.map(async (channel) => {
        const outcome = await this.#try(settings, channel, notice);
        if (!outcome.ok) this.#retry(settings, channel, notice, 0);
        return outcome;
      }),
    );
  }

  /** Stops the retries waiting; a send under way finishes. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#retries) clearTimeout(timer);
    this.#retries.clear();
  }

  #configured(settings: AlertSettings, channel: ChannelName): boolean {
    if (channel === "email") return settings.email !== null && this.#options.mailer !== undefined;
    return settings[channel] !== null;
  }

  #retry(settings: AlertSettings, channel: ChannelName, notice: Notice, index: number): void {
    const delay = this.#options.retrySchedule[index];
    if (delay === undefined || this.#closed) return;
    const timer = setTimeout(async () => {
      this.#retries.delete(timer);
      if (this.#closed) return;
      const outcome = await this.#try(settings, channel, notice);
      if (!outcome.ok) this.#retry(settings, channel, notice, index + 1);
    }, delay);
    timer.unref();
    this.#retries.add(timer);
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
      if (settings.email && this.#options.mailer) await this.#options.mailer.send(settings.email.to, notice);
      return;
    }
    if (channel === "webhook" && settings.webhook) {
      const { body, headers } = operationalRequest(notice, settings.webhook.secret, Date.now());
      return this.#post(settings.webhook.url, body, headers);
    }
    const chat = channel === "slack" ? settings.slack : channel === "teams" ? settings.teams : null;
    if (!chat) return;
    const message = channel === "slack" ? slackMessage(notice) : teamsMessage(notice);
    return this.#post(chat.url, JSON.stringify(message), { "content-type": "application/json" });
  }

  async #post(url: string, body: string, headers: Record<string, string>): Promise<void> {
    const response = await this.#options.fetch.fetch(url, { method: "POST", headers, body });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  }
}
