import { newEventId } from "../../contract/webhook-envelope.js";
import type { AlertRow } from "../storage/alerts/index.js";
import type { Condition } from "./conditions.js";

/** What a notice tells: an alert opened (again, as a reminder), or resolved. */
export interface Notice {
  event: "alert.opened" | "alert.resolved";
  /** An open alert notified again after the re-notify interval. */
  reminder: boolean;
  alert: AlertRow;
  /** The console page to act on, on the gateway's public URL. */
  url: string;
  /** §6.1: one event id per notice, the same on every channel and every retry. */
  eventId: string;
}

const TITLES: Readonly<Record<Condition, string>> = {
  mapping_failures: "Payloads failing to map",
  proof_failures: "Refused proofs on a hook URL",
  dead_letter_growth: "Dead letter growing",
  credential_paused: "Upstream credential paused by the platform",
  subscription_disabled: "Webhook subscription disabled",
  vendor_quiet: "Vendor gone quiet",
  forwarding_latency: "Forwarding slower than your bound",
};

export function makeNotice(
  event: Notice["event"],
  alert: AlertRow,
  publicUrl: string,
  reminder = false,
  eventId = newEventId(),
): Notice {
  return { event, reminder, alert, url: new URL(alert.link, publicUrl).toString(), eventId };
}

/** One line for a subject or a chat message's heading. */
export function noticeTitle(notice: Notice): string {
  const title = TITLES[notice.alert.condition as Condition] ?? notice.alert.condition;
  if (notice.event === "alert.resolved") return `Resolved: ${title}`;
  return `${notice.reminder ? "Still open" : notice.alert.severity === "critical" ? "Critical" : "Warning"}: ${title}`;
}

/** The notice as plain text: what happened, since when, how many, what to do, and where. */
export function noticeText(notice: Notice): string {
  const { alert } = notice;
  const lines = [noticeTitle(notice), "", alert.message, "", `Since: ${alert.openedAt}`, `Count: ${alert.count}`];
  if (notice.event === "alert.resolved") lines.push(`Resolved: ${alert.resolvedAt ?? ""}`);
  lines.push(`Resource: ${alert.resourceType} ${alert.resourceId}`, "", `Open in the console: ${notice.url}`);
  return lines.join("\n");
}
