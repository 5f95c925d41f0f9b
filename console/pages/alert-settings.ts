import type { OwnerAnswer } from "../api.js";
import { api, failureText } from "../api.js";
import { field, h, mount, notice, time } from "../dom.js";
import { link } from "../router.js";
import { isAdmin } from "../session.js";

type Settings = OwnerAnswer<"get", "/alert-settings">;
type Condition = keyof Settings["thresholds"];
type Channel = Settings["routes"]["warning"][number];

/** Each condition for a person, and its fields' labels (docs/alerts.md, "Conditions"). */
const CONDITIONS: Record<Condition, { title: string; fields: Record<string, string> }> = {
  mapping_failures: {
    title: "Payloads failing to map",
    fields: { rate: "Share failing (0–1)", minCount: "At least this many", windowMinutes: "Window (minutes)" },
  },
  proof_failures: {
    title: "Refused proofs on a hook URL",
    fields: { count: "Refusals", windowMinutes: "Window (minutes)" },
  },
  dead_letter_growth: {
    title: "Dead letter growing",
    fields: { count: "Entered the dead letter", windowMinutes: "Window (minutes)" },
  },
  credential_paused: { title: "Upstream credential paused", fields: {} },
  subscription_disabled: { title: "Webhook subscription disabled", fields: {} },
  vendor_quiet: {
    title: "Vendor gone quiet",
    fields: {
      multiple: "Usual intervals without a submission",
      floorMinutes: "Never before (minutes)",
      minHistory: "Submissions to learn from",
    },
  },
  forwarding_latency: {
    title: "Forwarding slow",
    fields: {
      p95Seconds: "95th percentile bound (seconds)",
      minCount: "At least this many",
      windowMinutes: "Window (minutes)",
    },
  },
};

const CHANNELS: [Channel, string][] = [
  ["email", "E-mail"],
  ["webhook", "Webhook"],
  ["slack", "Slack"],
  ["teams", "Teams"],
];

let said: HTMLElement | null = null;

/**
 * Alert settings (docs/alerts.md, "Setting it up"): each condition's thresholds, which channels each severity goes
 * to, how often an open alert is reminded, and the channels' addresses — as GET /owner/v1/alert-settings shows them
 * (no secret: the webhook's signing secret is kept when left empty, Slack's and Teams' URLs shown as a hint only).
 * An admin saves them whole with PUT; every owner may read them.
 */
export async function alertSettingsPage(view: HTMLElement, params: unknown, query: URLSearchParams): Promise<void> {
  const settings = await api.get("/alert-settings");
  const admin = isAdmin();
  const message = h("div", { "aria-live": "polite" }, said);
  said = null;
  const form = h("form", { class: "alert-settings", "aria-label": "Alert settings" });
  const number = (name: string, value: number, step = "1") =>
    h("input", { type: "number", name, value: String(value), step, min: "0", ...(admin ? {} : { disabled: "" }) });
  const checkbox = (name: string, checked: boolean, label: string) => {
    const box = h("input", {
      type: "checkbox",
      name,
      ...(checked ? { checked: "" } : {}),
      ...(admin ? {} : { disabled: "" }),
    });
    return h("label", { class: "check" }, box, ` ${label}`);
  };
  const text = (name: string, value: string, placeholder = "") =>
    h("input", { type: "text", name, value, placeholder, ...(admin ? {} : { disabled: "" }) });

  const conditions = (Object.keys(CONDITIONS) as Condition[]).map((condition) => {
    const { title, fields } = CONDITIONS[condition];
    const current = settings.thresholds[condition] as Record<string, number | boolean>;
    return h(
      "fieldset",
      { "data-condition": condition },
      h("legend", null, title),
      checkbox(`${condition}.enabled`, current.enabled === true, `Alert on ${title.toLowerCase()}`),
      ...Object.entries(fields).map(([name, label]) =>
        field(
          `${title}: ${label}`,
          number(`${condition}.${name}`, Number(current[name]), name === "rate" || name === "multiple" ? "any" : "1"),
        ),
      ),
    );
  });
  const routes = (["critical", "warning"] as const).map((severity) =>
    h(
      "fieldset",
      { "data-severity": severity },
      h("legend", null, `${severity === "critical" ? "Critical" : "Warning"} alerts go to`),
      ...CHANNELS.map(([channel, label]) =>
        checkbox(`route.${severity}.${channel}`, settings.routes[severity].includes(channel), label),
      ),
    ),
  );
  const { channels } = settings;
  form.append(
    h("h2", null, "Conditions"),
    ...conditions,
    h("h2", null, "Where alerts go"),
    ...routes,
    field("Remind of an open alert every (minutes)", number("renotifyMinutes", settings.renotifyMinutes)),
    h("h2", null, "Channels"),
    field(
      "E-mail to (comma-separated)",
      text("email", channels.email?.to.join(", ") ?? ""),
      "Sent when the gateway has SMTP_URL and ALERT_EMAIL_FROM.",
    ),
    field("Webhook URL", text("webhookUrl", channels.webhook?.url ?? "", "https://ops.example.com/gateway-alerts")),
    field(
      "Webhook signing secret",
      h("input", { type: "password", name: "webhookSecret", autocomplete: "off", ...(admin ? {} : { disabled: "" }) }),
      channels.webhook
        ? "Set. Leave empty to keep it."
        : "32 characters or more; each notice is signed with it (§6.3).",
    ),
    field(
      "Slack incoming webhook URL",
      text("slackUrl", "", channels.slack?.urlHint ?? "https://hooks.slack.com/services/…"),
      channels.slack ? `Set (${channels.slack.urlHint}). Leave empty to keep it.` : undefined,
    ),
    field(
      "Teams incoming webhook URL",
      text("teamsUrl", "", channels.teams?.urlHint ?? "https://…webhook.office.com/…"),
      channels.teams ? `Set (${channels.teams.urlHint}). Leave empty to keep it.` : undefined,
    ),
    admin
      ? h("button", { type: "submit" }, "Save alert settings")
      : h("p", { class: "muted" }, "Only an admin can change them."),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api.put("/alert-settings", { body: bodyOf(new FormData(form), settings) });
      said = notice("ok", "Alert settings saved.");
      await alertSettingsPage(view, params, query);
    } catch (error) {
      mount(message, notice("error", failureText(error)));
    }
  });
  mount(
    view,
    h("h1", null, "Alert settings"),
    h(
      "p",
      { class: "muted" },
      "When the gateway opens an alert, and where it tells you. ",
      link("/alerts", "Back to the alerts"),
      settings.updatedAt ? ` · Last changed ${time(settings.updatedAt)}` : null,
    ),
    message,
    form,
  );
}

/** The PUT body from the form: every threshold and route, and each channel as typed (empty: off, or kept). */
function bodyOf(data: FormData, current: Settings) {
  const value = (name: string) => String(data.get(name) ?? "").trim();
  const thresholds: Record<string, Record<string, number | boolean>> = {};
  for (const condition of Object.keys(CONDITIONS) as Condition[]) {
    const own: Record<string, number | boolean> = { enabled: data.get(`${condition}.enabled`) !== null };
    for (const name of Object.keys(CONDITIONS[condition].fields)) own[name] = Number(value(`${condition}.${name}`));
    thresholds[condition] = own;
  }
  const routes = Object.fromEntries(
    (["critical", "warning"] as const).map((severity) => [
      severity,
      CHANNELS.map(([c]) => c).filter((c) => data.get(`route.${severity}.${c}`) !== null),
    ]),
  ) as Settings["routes"];
  const emails = value("email")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const webhookUrl = value("webhookUrl");
  const secret = value("webhookSecret");
  const chat = (name: string, set: boolean) => {
    const url = value(name);
    return url ? { url } : set ? undefined : null;
  };
  const slack = chat("slackUrl", current.channels.slack !== null);
  const teams = chat("teamsUrl", current.channels.teams !== null);
  return {
    thresholds,
    routes,
    renotifyMinutes: Number(value("renotifyMinutes")),
    channels: {
      email: emails.length ? { to: emails } : null,
      webhook: webhookUrl ? { url: webhookUrl, ...(secret ? { secret } : {}) } : null,
      ...(slack === undefined ? {} : { slack }),
      ...(teams === undefined ? {} : { teams }),
    },
  };
}
