import nodemailer, { type Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { type Notice, noticeText, noticeTitle } from "../notice.js";

/** SMTP for alert e-mail (docs/configuration.md: SMTP_URL, ALERT_EMAIL_FROM; D-346). */
export interface SmtpSettings {
  /** `smtp://` (STARTTLS when the server offers it) or `smtps://` (TLS from the start); credentials in the URL. */
  url: string;
  from: string;
}

/** Sends alert notices by e-mail through one pooled SMTP transport (nodemailer). */
export class AlertMailer {
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(smtp: SmtpSettings) {
    // nodemailer reads the scheme, host, port and credentials from the URL; 10 s to connect, like an outbound POST.
    const options: SMTPTransport.Options = { url: smtp.url, connectionTimeout: 10_000, greetingTimeout: 10_000 };
    this.#transport = nodemailer.createTransport(options);
    this.#from = smtp.from;
  }

  async send(to: readonly string[], notice: Notice): Promise<void> {
    await this.#transport.sendMail({
      from: this.#from,
      to: [...to],
      subject: `[partner-gateway] ${noticeTitle(notice)}`,
      text: noticeText(notice),
      headers: { "x-alert-id": notice.alert.id, "x-alert-event": notice.event },
    });
  }

  close(): void {
    this.#transport.close();
  }
}
