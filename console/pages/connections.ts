import { api, failureText } from "../api.js";
import { confirmDialog } from "../confirm.js";
import { badge, field, h, mount, notice, select, time } from "../dom.js";
import { link } from "../router.js";
import { isAdmin } from "../session.js";
import type { Connection, ConnectionPreset } from "../types.js";
import { type Connected, connectForm, showHookUrlOnce, vendorName } from "./connection-form.js";

/** A connection just made or rotated: its hook URL, shown by the next render of the page, then forgotten. */
let shown: Connected | null = null;
let said: HTMLElement | null = null;

const OVERLAPS: [string, string][] = [
  ["0", "none: the old hook URL stops now"],
  ["1", "1 hour"],
  ["24", "1 day"],
  ["168", "7 days"],
];

/**
 * Hook connections (docs/connections.md, "Connecting a vendor"): connect a vendor from the catalogue (the hook URL
 * shown once, with the vendor's setup notes), and per connection its status, the requests refused for a wrong proof
 * and the last one, its held payloads, and for admins rotating the hook URL with an overlap and revoking.
 */
export async function connectionsPage(view: HTMLElement): Promise<void> {
  const [{ connections }, { presets }, { credentials }] = await Promise.all([
    api.get("/connections"),
    api.get("/connection-presets"),
    api.get("/credentials"),
  ]);
  const hookBox = h("div", { "aria-live": "polite" });
  const status = h("div", { "aria-live": "polite" }, said);
  said = null;
  const actionBox = h("div");
  const reload = async () => connectionsPage(view);
  const presetOf = (id: string | null) => presets.find((p) => p.id === id);

  const rows = connections.map((c) => {
    const preset = presetOf(c.preset);
    return h(
      "tr",
      { "data-status": c.status, class: c.status === "revoked" ? "revoked" : null },
      h("td", null, h("strong", null, c.name), h("div", { class: "muted mono" }, c.id)),
      h(
        "td",
        null,
        preset ? vendorName(preset) : (c.vendor ?? "own declarations"),
        h("div", { class: "muted" }, c.profileKind),
      ),
      h(
        "td",
        null,
        badge(c.status),
        c.status === "revoked" ? h("div", { class: "muted" }, time(c.revokedAt)) : null,
        c.status === "active" && c.previousHookUrlValidUntil && Date.parse(c.previousHookUrlValidUntil) > Date.now()
          ? h("div", { class: "muted" }, "previous hook URL works until ", time(c.previousHookUrlValidUntil))
          : null,
      ),
      h("td", { class: "num" }, String(c.proofFailures)),
      h(
        "td",
        { class: "last-refusal" },
        c.lastProofFailureAt
          ? [time(c.lastProofFailureAt), h("div", { class: "error-text" }, c.lastProofFailure ?? "")]
          : h("span", { class: "muted" }, "none"),
      ),
      h(
        "td",
        null,
        link(`/submissions?connectionId=${encodeURIComponent(c.id)}&status=held`, "Held payloads", {
          "aria-label": `Held payloads of ${c.name}`,
        }),
        h("div", null, link(`/submissions?connectionId=${encodeURIComponent(c.id)}`, "All submissions")),
        h("div", null, link(`/keys/${encodeURIComponent(c.vendorKeyId)}/captures`, "Capture mode")),
      ),
      h("td", null, isAdmin() && c.status === "active" ? actions(c) : null),
    );
  });

  function actions(c: Connection): HTMLElement {
    return h("div", { class: "actions" }, [
      h(
        "button",
        {
          type: "button",
          "aria-label": `Rotate the hook URL of ${c.name}`,
          onclick: () => mount(actionBox, rotateForm(c, presetOf(c.preset))),
        },
        "Rotate URL",
      ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          "aria-label": `Revoke ${c.name}`,
          onclick: async () => {
            const ok = await confirmDialog(
              `Revoke ${c.name}? Its hook URL is refused from now on, and its vendor key with it. What it submitted stays. This cannot be undone.`,
              "Revoke connection",
            );
            if (!ok) return;
            try {
              await api.post("/connections/{connectionId}/revoke", { params: { connectionId: c.id } });
              said = notice("ok", `Revoked ${c.name}.`);
              await reload();
            } catch (error) {
              mount(status, notice("error", failureText(error)));
            }
          },
        },
        "Revoke",
      ),
    ]);
  }

  function rotateForm(c: Connection, preset: ConnectionPreset | undefined): HTMLElement {
    const overlap = select("overlapHours", OVERLAPS, "24");
    const formStatus = h("div", { "aria-live": "polite" });
    return h(
      "form",
      {
        class: "card",
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            const rotated = await api.post("/connections/{connectionId}/rotate-hook-url", {
              params: { connectionId: c.id },
              body: { overlapHours: Number(overlap.value) },
            });
            shown = { name: rotated.name, hookUrl: rotated.hookUrl, preset };
            said = notice(
              "ok",
              rotated.previousHookUrlValidUntil
                ? `The previous hook URL of ${c.name} keeps working until ${time(rotated.previousHookUrlValidUntil)}.`
                : `The previous hook URL of ${c.name} no longer works.`,
            );
            await reload();
          } catch (error) {
            mount(formStatus, notice("error", failureText(error)));
          }
        },
      },
      h("h2", null, `Rotate the hook URL of ${c.name}`),
      h(
        "p",
        { class: "muted" },
        "A new hook URL is made and shown once. The current one keeps working for the overlap, while you paste the new one into the vendor's dashboard.",
      ),
      field(`Overlap for ${c.name}`, overlap),
      h("button", { type: "submit", class: "primary" }, "Rotate hook URL"),
      formStatus,
    );
  }

  mount(
    view,
    h("h1", null, "Connections"),
    h(
      "p",
      { class: "muted" },
      "Vendors that post to a hook URL of their own: the gateway checks the vendor's proof, stores what it sends, maps it and forwards it. A payload its profile cannot map is held: fix the profile, then re-map its held payloads.",
    ),
    status,
    hookBox,
    actionBox,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "connections" },
        h("caption", { class: "sr-only" }, "Hook connections"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Connection", "Vendor", "Status", "Refused proofs", "Last refusal", "Submissions", ""].map((t) =>
              h("th", { scope: "col" }, t),
            ),
          ),
        ),
        h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: "7" }, "No connections yet."))),
      ),
    ),
    isAdmin()
      ? connectForm(presets, credentials, async (connected) => {
          shown = connected;
          await reload();
        })
      : h("p", { class: "muted" }, "A viewer sees the connections; an admin connects, rotates and revokes them."),
  );
  if (shown) showHookUrlOnce(hookBox, shown);
  shown = null;
}
