import { ApiFailure, api } from "../api.js";
import { badge, h, json, mount, notice, time } from "../dom.js";
import { isAdmin } from "../session.js";

export interface Subscription {
  id: string;
  vendorKeyId: string;
  url: string;
  events: string[];
  status: string;
  disabledReason: string | null;
  consecutiveFailures: number;
  secrets: { currentVersion: number | null; pendingVersion: number | null };
  createdAt: string;
}
export interface Delivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const fail = (box: HTMLElement, error: unknown) =>
  mount(box, notice("error", error instanceof ApiFailure ? error.message : String(error)));

/** One subscription: its events and secret versions, test event, rotation, the delivery log and redelivery. */
export function subscriptionCard(s: Subscription, keyName: string, reload: () => Promise<void>): HTMLElement {
  const status = h("div", { "aria-live": "polite" });
  const deliveries = h("div");
  const admin = isAdmin();
  const action = (label: string, run: () => Promise<void>, cls = "") =>
    h(
      "button",
      {
        type: "button",
        class: cls,
        onclick: async () => {
          try {
            await run();
          } catch (e) {
            fail(status, e);
          }
        },
      },
      label,
    );
  return h(
    "section",
    { class: "card", "aria-label": `Subscription ${s.id}` },
    h(
      "div",
      { class: "page-head" },
      h("h2", null, keyName, " → ", h("span", { class: "mono" }, s.url)),
      badge(s.status),
    ),
    h(
      "p",
      null,
      "Events: ",
      s.events.join(", "),
      " · secret v",
      String(s.secrets.currentVersion ?? "—"),
      s.secrets.pendingVersion ? ` (pending v${s.secrets.pendingVersion})` : "",
      s.consecutiveFailures ? ` · ${s.consecutiveFailures} failures in a row` : "",
      s.disabledReason ? ` · ${s.disabledReason}` : "",
    ),
    h(
      "div",
      { class: "actions" },
      action("Deliveries", () => showDeliveries(deliveries, s.id, status)),
      admin
        ? action("Send a test event", async () => {
            const r = await api<{ queued: boolean }>("POST", `/webhooks/subscriptions/${s.id}/test`);
            mount(status, notice("ok", r.queued ? "Test event queued." : "Nothing queued."));
            await showDeliveries(deliveries, s.id, status);
          })
        : null,
      admin
        ? action("Rotate secret", async () => {
            const r = await api<{ pendingSecretVersion: number; secret: string }>(
              "POST",
              `/webhooks/subscriptions/${s.id}/rotate-secret`,
            );
            const secret = h("input", {
              type: "text",
              readonly: true,
              value: r.secret,
              class: "code secret",
              "aria-label": `Pending secret v${r.pendingSecretVersion}`,
            });
            mount(
              status,
              h(
                "div",
                { class: "secret-once" },
                h(
                  "p",
                  null,
                  `Pending secret v${r.pendingSecretVersion}, shown once. Give it to the vendor; when they verify with it, activate it.`,
                ),
                h(
                  "div",
                  { class: "row" },
                  secret,
                  h(
                    "button",
                    {
                      type: "button",
                      onclick: () => {
                        secret.select();
                        void navigator.clipboard?.writeText(r.secret).catch(() => undefined);
                      },
                    },
                    "Copy",
                  ),
                  action(
                    `Activate v${r.pendingSecretVersion}`,
                    async () => {
                      await api("POST", `/webhooks/subscriptions/${s.id}/activate-secret`, {
                        pendingSecretVersion: r.pendingSecretVersion,
                      });
                      await reload();
                    },
                    "primary",
                  ),
                ),
              ),
            );
            secret.focus();
          })
        : null,
      admin
        ? action(s.status === "active" ? "Disable" : "Enable", async () => {
            await api("PATCH", `/webhooks/subscriptions/${s.id}`, {
              status: s.status === "active" ? "disabled" : "active",
            });
            await reload();
          })
        : null,
    ),
    status,
    deliveries,
  );
}

async function showDeliveries(box: HTMLElement, subscriptionId: string, status: HTMLElement): Promise<void> {
  const { deliveries } = await api<{ deliveries: Delivery[] }>(
    "GET",
    `/webhooks/subscriptions/${subscriptionId}/deliveries?limit=20`,
  );
  const detail = h("div", { "aria-live": "polite" });
  mount(
    box,
    h("h3", null, "Deliveries"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        null,
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Event", "Created", "Status", "Attempts", "Last answer", ""].map((t) => h("th", { scope: "col" }, t)),
          ),
        ),
        h(
          "tbody",
          null,
          deliveries.length
            ? deliveries.map((d) =>
                h(
                  "tr",
                  null,
                  h("td", null, d.event),
                  h("td", null, time(d.createdAt)),
                  h("td", null, badge(d.status)),
                  h("td", { class: "num" }, String(d.attempts)),
                  h(
                    "td",
                    null,
                    d.lastStatus === null ? "—" : `HTTP ${d.lastStatus}`,
                    d.lastError ? h("div", { class: "error-text" }, d.lastError) : null,
                  ),
                  h(
                    "td",
                    null,
                    h(
                      "button",
                      {
                        type: "button",
                        class: "link",
                        onclick: async () => {
                          const full = await api("GET", `/webhooks/deliveries/${d.id}`);
                          mount(detail, h("h4", null, `Delivery ${d.id}`), h("pre", { class: "code" }, json(full)));
                        },
                      },
                      "Attempts",
                    ),
                    isAdmin()
                      ? h(
                          "button",
                          {
                            type: "button",
                            class: "link",
                            onclick: async () => {
                              try {
                                await api("POST", `/webhooks/deliveries/${d.id}/redeliver`);
                                await showDeliveries(box, subscriptionId, status);
                              } catch (e) {
                                fail(status, e);
                              }
                            },
                          },
                          "Redeliver",
                        )
                      : null,
                  ),
                ),
              )
            : h("tr", null, h("td", { colspan: "6" }, "No deliveries yet.")),
        ),
      ),
    ),
    detail,
  );
}
