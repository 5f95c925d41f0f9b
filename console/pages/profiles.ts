import { api, failureText } from "../api.js";
import { badge, field, h, mount, notice, select } from "../dom.js";
import { link, navigate } from "../router.js";
import { isAdmin } from "../session.js";
import type { Kind } from "../types.js";

/** Every profile with its kind, the keys bound to it, its latest version and whether its golden samples pass. */
export async function profilesPage(view: HTMLElement): Promise<void> {
  const [{ profiles }, { keys }] = await Promise.all([api.get("/profiles"), api.get("/keys")]);
  const keyName = new Map(keys.map((k) => [k.id, k.name]));
  const rows = profiles
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => {
      const v = p.latestVersion;
      return h(
        "tr",
        null,
        h("td", null, link(`/profiles/${p.id}`, p.name)),
        h("td", null, p.kind),
        h(
          "td",
          null,
          p.boundKeys.length
            ? p.boundKeys.map((k) => keyName.get(k) ?? k).join(", ")
            : h("span", { class: "muted" }, "none"),
        ),
        h("td", null, v ? [`v${v.version} `, badge(v.status)] : h("span", { class: "muted" }, "no version")),
        h(
          "td",
          null,
          !v ? "—" : v.samples.length === 0 ? badge("untested") : v.samplesPassed ? badge("passing") : badge("failing"),
          v ? h("span", { class: "muted" }, ` ${v.samples.length} sample${v.samples.length === 1 ? "" : "s"}`) : null,
        ),
      );
    });
  mount(
    view,
    h("h1", null, "Profiles"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        null,
        h("caption", { class: "sr-only" }, "Mapping profiles"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Name", "Kind", "Bound keys", "Latest version", "Golden samples"].map((t) => h("th", { scope: "col" }, t)),
          ),
        ),
        h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: "5" }, "No profiles yet."))),
      ),
    ),
    isAdmin() ? newProfileForm() : null,
  );
}

function newProfileForm(): HTMLElement {
  const name = h("input", { name: "name", required: true, maxlength: "100", autocomplete: "off" });
  const kind = select("kind", [
    ["lead", "lead"],
    ["appointment", "appointment"],
    ["outbound", "outbound (webhooks back to a vendor)"],
  ]);
  const status = h("div", { "aria-live": "polite" });
  return h(
    "form",
    {
      class: "card inline-form",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          const created = await api.post("/profiles", { body: { name: name.value, kind: kind.value as Kind } });
          navigate(`/profiles/${created.id}`);
        } catch (error) {
          mount(status, notice("error", failureText(error)));
        }
      },
    },
    h("h2", null, "New profile"),
    h(
      "div",
      { class: "row" },
      field("Name", name),
      field("Kind", kind),
      h("button", { type: "submit", class: "primary" }, "Create draft profile"),
    ),
    status,
  );
}
