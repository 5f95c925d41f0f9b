import { api, failureText } from "../api.js";
import { confirmDialog } from "../confirm.js";
import { badge, field, h, mount, notice, time } from "../dom.js";
import { link } from "../router.js";
import { isAdmin } from "../session.js";
import type { Credential } from "../types.js";

/** What the last action said, shown by the next render of the page. */
let said: HTMLElement | null = null;

const failure = (error: unknown) => notice("error", failureText(error));

/**
 * Upstream credentials (the company's general keys for the platform): add one, replace a value, and see a credential
 * the platform refused — forwarding pauses it and its submissions wait — with the reason; resume it once the platform
 * takes the key again, or rotate it to a new value. Values go in and are never shown again.
 */
export async function credentialsPage(view: HTMLElement): Promise<void> {
  const { credentials } = await api.get("/credentials");
  const status = h("div", { "aria-live": "polite" }, said);
  said = null;
  const actionBox = h("div");
  const reload = async (message: HTMLElement) => {
    said = message;
    await credentialsPage(view);
  };
  const resumeIt = async (c: Credential) => {
    const ok = await confirmDialog(
      `Resume ${c.name} with its current value? Its waiting submissions are sent again; if the platform still refuses the key, it is paused again.`,
      "Resume",
    );
    if (!ok) return;
    try {
      await api.post("/credentials/{credentialId}/resume", { params: { credentialId: c.id } });
      await reload(notice("ok", `Resumed ${c.name}: its waiting submissions are queued again.`));
    } catch (error) {
      mount(status, failure(error));
    }
  };

  const rows = credentials.map((c) =>
    h(
      "tr",
      { "data-status": c.status },
      h("td", null, h("strong", null, c.name), h("div", null, h("code", null, c.keyPrefix, "…"))),
      h("td", { class: "num" }, String(c.version)),
      h(
        "td",
        null,
        badge(c.status),
        c.status === "paused"
          ? [
              h("div", { class: "paused-reason" }, c.pausedReason ?? "refused by the platform"),
              h("div", null, link("/submissions?status=waiting", "its waiting submissions")),
            ]
          : null,
      ),
      h("td", null, time(c.createdAt)),
      h("td", null, time(c.rotatedAt)),
      h(
        "td",
        null,
        isAdmin()
          ? h("div", { class: "actions" }, [
              h(
                "button",
                {
                  type: "button",
                  "aria-label": `Rotate ${c.name}`,
                  onclick: () => mount(actionBox, rotateForm(c, reload)),
                },
                "Rotate",
              ),
              c.status === "paused"
                ? h(
                    "button",
                    { type: "button", class: "primary", "aria-label": `Resume ${c.name}`, onclick: () => resumeIt(c) },
                    "Resume",
                  )
                : null,
            ])
          : null,
      ),
    ),
  );
  mount(
    view,
    h("h1", null, "Upstream credentials"),
    h(
      "p",
      { class: "muted" },
      "The company's general keys for the platform's Inbound API. A value goes in and is never shown again. When the platform refuses a key (401/403), forwarding pauses the credential and its submissions wait until it is resumed or rotated.",
    ),
    status,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "credentials" },
        h("caption", { class: "sr-only" }, "Upstream credentials"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Credential", "Version", "Status", "Added", "Rotated", ""].map((t) => h("th", { scope: "col" }, t)),
          ),
        ),
        h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: "6" }, "No credentials yet."))),
      ),
    ),
    actionBox,
    isAdmin()
      ? addForm(reload)
      : h("p", { class: "muted" }, "A viewer sees the credentials; an admin adds, rotates and resumes them."),
  );
}

function addForm(reload: (message: HTMLElement) => Promise<void>): HTMLElement {
  const name = h("input", { name: "credentialName", required: true, maxlength: "100", autocomplete: "off" });
  const value = h("input", {
    type: "password",
    name: "credentialValue",
    required: true,
    minlength: "10",
    maxlength: "300",
    autocomplete: "off",
  });
  const status = h("div", { "aria-live": "polite" });
  return h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          const created = await api.post("/credentials", { body: { name: name.value, value: value.value } });
          await reload(notice("ok", `Added ${created.name} (${created.keyPrefix}…).`));
        } catch (error) {
          mount(status, failure(error));
        }
      },
    },
    h("h2", null, "Add a credential"),
    h(
      "div",
      { class: "row" },
      field("Credential name", name),
      field("Credential value", value, "svc_test_… or svc_live_…, from the platform"),
    ),
    h("button", { type: "submit", class: "primary" }, "Add credential"),
    status,
  );
}

function rotateForm(c: Credential, reload: (message: HTMLElement) => Promise<void>): HTMLElement {
  const value = h("input", {
    type: "password",
    name: "newValue",
    required: true,
    minlength: "10",
    maxlength: "300",
    autocomplete: "off",
  });
  const status = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          const rotated = await api.post("/credentials/{credentialId}/rotate", {
            params: { credentialId: c.id },
            body: { value: value.value },
          });
          await reload(notice("ok", `Rotated ${rotated.name}: version ${rotated.version}, ${rotated.status}.`));
        } catch (error) {
          mount(status, failure(error));
        }
      },
    },
    h("h2", null, `Rotate ${c.name}`),
    h(
      "p",
      { class: "muted" },
      "The new value replaces the old one at once; a paused credential becomes active and its waiting submissions are sent.",
    ),
    field(`New value for ${c.name}`, value),
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, "Replace value")),
    status,
  );
  queueMicrotask(() => value.focus());
  return form;
}
