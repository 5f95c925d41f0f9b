import { api, failureText } from "../api.js";
import { field, h, mount, notice, select } from "../dom.js";
import { isAdmin } from "../session.js";
import type { VendorKey } from "../types.js";
import { subscriptionCard } from "./webhook-subscription.js";

/** A new subscription's signing secret: shown by the next render of the page, then forgotten. */
let createdSecret: { version: number; secret: string } | null = null;

const fail = (box: HTMLElement, error: unknown) => mount(box, notice("error", failureText(error)));

/** Vendor webhook subscriptions: create, rotate and activate secrets, test, and the delivery log with redelivery. */
export async function webhooksPage(view: HTMLElement): Promise<void> {
  const [{ subscriptions }, { keys }, catalogue] = await Promise.all([
    api.get("/webhooks/subscriptions"),
    api.get("/keys"),
    api.get("/webhooks/events"),
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
      ? subscriptions.map((s) =>
          subscriptionCard(s, names.get(s.vendorKeyId) ?? s.vendorKeyId, () => webhooksPage(view)),
        )
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

function createForm(
  view: HTMLElement,
  keys: VendorKey[],
  events: Readonly<Record<string, readonly string[]>>,
): HTMLElement {
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
          const created = await api.post("/webhooks/subscriptions", {
            body: { vendorKeyId: key.value, url: url.value, events: chosen },
          });
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
