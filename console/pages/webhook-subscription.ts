import { api, failureText } from "../api.js";
import { badge, h, json, mount, notice, time } from "../dom.js";
import { isAdmin } from "../session.js";
import type { Subscription } from "../types.js";

const fail = (box: HTMLElement, error: unknown) => mount(box, notice("error", failureText(error)));

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
            const r = await api.post("/webhooks/subscriptions/{subscriptionId}/test", {
              params: { subscriptionId: s.id },
            });
            mount(status, notice("ok", r.queued ? "Test event queued." : "Nothing queued."));
            await showDeliveries(deliveries, s.id, status);
          })
        : null,
      admin
        ? action("Rotate secret", async () => {
            const r = await api.post("/webhooks/subscriptions/{subscriptionId}/rotate-secret", {
              params: { subscriptionId: s.id },
            });
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
                      if (r.pendingSecretVersion === null) throw new Error("no secret is pending");
                      await api.post("/webhooks/subscriptions/{subscriptionId}/activate-secret", {
                        params: { subscriptionId: s.id },
                        body: { pendingSecretVersion: r.pendingSecretVersion },
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
            await api.patch("/webhooks/subscriptions/{subscriptionId}", {
              params: { subscriptionId: s.id },
              body: { status: s.status === "active" ? "disabled" : "active" },
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
  const { deliveries } = await api.get("/webhooks/subscriptions/{subscriptionId}/deliveries", {
    params: { subscriptionId },
    query: { limit: 20 },
  });
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
                          const full = await api.get("/webhooks/deliveries/{deliveryId}", {
                            params: { deliveryId: d.id },
                          });
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
                                await api.post("/webhooks/deliveries/{deliveryId}/redeliver", {
                                  params: { deliveryId: d.id },
                                });
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
