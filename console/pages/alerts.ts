import type { OwnerAnswer } from "../api.js";
import { api, failureText } from "../api.js";
import { badge, h, mount, notice, select, time } from "../dom.js";
import { link, navigate } from "../router.js";
import { isAdmin } from "../session.js";

type Alert = OwnerAnswer<"get", "/alerts">["alerts"][number];
type Status = "open" | "acknowledged" | "resolved";

/** What each condition is, for a person (docs/alerts.md, "Conditions"). */
const TITLES: Record<Alert["condition"], string> = {
  mapping_failures: "Payloads failing to map",
  proof_failures: "Refused proofs on a hook URL",
  dead_letter_growth: "Dead letter growing",
  credential_paused: "Upstream credential paused",
  subscription_disabled: "Webhook subscription disabled",
  vendor_quiet: "Vendor gone quiet",
  forwarding_latency: "Forwarding slow",
};

/** How long a mute lasts, as offered (the API takes any instant up to 30 days ahead). */
const MUTES: [string, string][] = [
  ["3600000", "1 hour"],
  ["86400000", "1 day"],
  ["604800000", "7 days"],
];

let said: HTMLElement | null = null;

/**
 * Alerts (docs/alerts.md): what the gateway found wrong, newest first, open ones by default; each says what
 * happened, since when, how many, and links to the page to act on. An admin acknowledges one (no more reminders) or
 * mutes it for a while (no notice at all); every owner sees them. The badge in the top bar counts the open ones.
 */
export async function alertsPage(view: HTMLElement, _params: unknown, query: URLSearchParams): Promise<void> {
  const wanted = query.get("status");
  const status: Status | undefined =
    wanted === "acknowledged" || wanted === "resolved" || wanted === "open"
      ? wanted
      : wanted === "all"
        ? undefined
        : "open";
  const { alerts } = await api.get("/alerts", { query: { ...(status ? { status } : {}), limit: 100 } });
  const message = h("div", { "aria-live": "polite" }, said);
  said = null;
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      said = notice("ok", done);
      await alertsPage(view, _params, query);
    } catch (error) {
      mount(message, notice("error", failureText(error)));
    }
  };
  const filter = select(
    "status",
    [
      ["open", "Open"],
      ["acknowledged", "Acknowledged"],
      ["resolved", "Resolved"],
      ["all", "All"],
    ],
    status ?? "all",
  );
  filter.setAttribute("aria-label", "Show alerts");
  filter.addEventListener("change", () => navigate(`/alerts?status=${filter.value}`));

  const rows = alerts.map((a) =>
    h(
      "tr",
      { "data-alert": a.id, "data-status": a.status },
      // The severity's word in the colour of a failure or of a wait (never colour alone).
      h(
        "td",
        null,
        h("span", { class: `badge badge-${a.severity === "critical" ? "failed" : "pending"}` }, a.severity),
      ),
      h(
        "td",
        null,
        h("strong", null, TITLES[a.condition]),
        h("div", null, a.message),
        h("div", { class: "muted" }, `${a.resourceType} ${a.resourceId}`),
        h("div", null, link(a.link.replace(/^\/console/, "") || "/", "Open the page to act on it")),
      ),
      h("td", { class: "num" }, String(a.count)),
      h("td", null, time(a.openedAt)),
      h(
        "td",
        null,
        badge(a.status),
        a.resolvedAt ? h("div", null, "resolved ", time(a.resolvedAt)) : null,
        a.mutedUntil && Date.parse(a.mutedUntil) > Date.now()
          ? h("div", null, "muted until ", time(a.mutedUntil))
          : null,
      ),
      h("td", null, isAdmin() && a.status !== "resolved" ? actions(a, act) : null),
    ),
  );
  mount(
    view,
    h("h1", null, "Alerts"),
    h(
      "p",
      { class: "muted" },
      "Trouble the gateway found on your keys, connections, credentials and webhooks. An alert resolves by itself when its condition clears; where its notices go is set in the ",
      link("/alerts/settings", "alert settings"),
      ".",
    ),
    h("p", null, filter),
    message,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "alerts" },
        h("caption", { class: "sr-only" }, "Alerts"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Severity", "What", "Count", "Since", "Status", ""].map((t) => h("th", { scope: "col" }, t)),
          ),
        ),
        h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: "6" }, "No alerts here."))),
      ),
    ),
  );
}

function actions(a: Alert, act: (work: () => Promise<unknown>, done: string) => Promise<void>): HTMLElement {
  const length = select("mute", MUTES, "3600000");
  length.setAttribute("aria-label", `Mute ${TITLES[a.condition]} for`);
  return h(
    "div",
    { class: "actions" },
    a.status === "open"
      ? h(
          "button",
          {
            type: "button",
            "aria-label": `Acknowledge ${TITLES[a.condition]}`,
            onclick: () =>
              act(
                () => api.post("/alerts/{alertId}/acknowledge", { params: { alertId: a.id } }),
                "Acknowledged: no more reminders; it resolves by itself.",
              ),
          },
          "Acknowledge",
        )
      : null,
    length,
    h(
      "button",
      {
        type: "button",
        "aria-label": `Mute ${TITLES[a.condition]}`,
        onclick: () => {
          const until = new Date(Date.now() + Number(length.value)).toISOString();
          return act(
            () => api.post("/alerts/{alertId}/mute", { params: { alertId: a.id }, body: { until } }),
            "Muted: no notice of it until then.",
          );
        },
      },
      "Mute",
    ),
  );
}

/** The top bar's count of open alerts (refreshed with every page). */
export async function openAlertCount(): Promise<number> {
  const { alerts, nextCursor } = await api.get("/alerts", { query: { status: "open", limit: 200 } });
  return nextCursor ? 200 : alerts.length;
}
