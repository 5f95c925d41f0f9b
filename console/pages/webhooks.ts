import { ApiFailure, api } from "../api.js";
import { badge, field, h, json, mount, notice, select, time } from "../dom.js";
import { isAdmin } from "../session.js";
import type { VendorKey } from "../types.js";

interface Subscription {
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
interface Delivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** A new subscription's signing secret: shown by the next render of the page, then forgotten. */
let createdSecret: { version: number; secret: string } | null = null;

const fail = (box: HTMLElement, error: unknown) =>
  mount(box, notice("error", error instanceof ApiFailure ? error.message : String(error)));

/** Vendor webhook subscriptions: create, rotate and activate secrets, test, and the delivery log with redelivery. */
export async function webhooksPage(view: HTMLElement): Promise<void> {
  const [{ subscriptions }, { keys }, catalogue] = await Promise.all([
    api<{ subscriptions: Subscription[] }>("GET", "/webhooks/subscriptions"),
    api<{ keys: VendorKey[] }>("GET", "/keys"),
    api<{ eventsByPartnerType: Record<string, string[]> }>("GET", "/webhooks/events"),
  ]);
  const names = new Map(keys.map((k) => [k.id, k.name]));
  const secret = createdSecret;
  createdSecret = null;
  mount(
    view,
    h("h1", null, "Webhooks"),
    secret
      ? h(
          "div",
          { class: "card secret-once" },
          h(
            "p",
            null,
            `Signing secret v${secret.version} of the new subscription: copy it for the vendor now, it is shown once.`,
          ),
          h(
            "div",
            { class: "row" },
            h("input", {
              type: "text",
              readonly: true,
              value: secret.secret,
              class: "code secret",
              "aria-label": "Signing secret",
            }),
            h(
              "button",
              {
                type: "button",
                onclick: () => void navigator.clipboard?.writeText(secret.secret).catch(() => undefined),
              },
              "Copy",
            ),
          ),
        )
      : null,
    subscriptions.length
      ? subscriptions.map((s) => subscriptionCard(view, s, names.get(s.vendorKeyId) ?? s.vendorKeyId))
      : h("p", { class: "muted" }, "No subscriptions yet."),
    isAdmin()
      ? createForm(
          view,
          keys.filter((k) => !k.revokedAt),
          catalogue.eventsByPartnerType,
        )
      : null,
  );
}

function subscriptionCard(view: HTMLElement, s: Subscription, keyName: string): HTMLElement {
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
                      await webhooksPage(view);
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
            await webhooksPage(view);
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

function createForm(view: HTMLElement, keys: VendorKey[], events: Record<string, string[]>): HTMLElement {
  const key = select(
    "vendorKeyId",
    keys.map((k) => [k.id, k.name]),
  );
  const url = h("input", { type: "url", name: "url", required: true, placeholder: "https://vendor.example/hooks" });
  const eventBox = h("fieldset", null);
  const status = h("div", { "aria-live": "polite" });
  const renderEvents = () => {
    const type = keys.find((k) => k.id === key.value)?.partnerType ?? "lead_source";
    mount(
      eventBox,
      h("legend", null, "Events"),
      (events[type] ?? []).map((e) =>
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "events", value: e }), ` ${e}`),
      ),
    );
  };
  key.addEventListener("change", renderEvents);
  renderEvents();
  return h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const chosen = [...eventBox.querySelectorAll<HTMLInputElement>("input:checked")].map((i) => i.value);
        try {
          const created = await api<{ id: string; secret: { version: number; secret: string } }>(
            "POST",
            "/webhooks/subscriptions",
            { vendorKeyId: key.value, url: url.value, events: chosen },
          );
          createdSecret = created.secret;
          await webhooksPage(view);
        } catch (e) {
          fail(status, e);
        }
      },
    },
    h("h2", null, "New subscription"),
    h("div", { class: "row" }, field("Vendor key", key), field("URL", url)),
    eventBox,
    h("button", { type: "submit", class: "primary" }, "Subscribe"),
    status,
  );
}
