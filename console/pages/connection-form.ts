import { api, failureText } from "../api.js";
import { field, h, mount, notice, select } from "../dom.js";
import type { ConnectionPreset, Credential } from "../types.js";

/** A connection just made: its hook URL (shown once) and the preset whose setup notes go with it. */
export interface Connected {
  name: string;
  hookUrl: string;
  preset: ConnectionPreset | undefined;
}

/**
 * Connecting a vendor from the catalogue (docs/connections.md, "Connecting a vendor"): pick the vendor, name the
 * connection, paste each secret — its description and where to find it shown beside it — and, when the company has
 * several upstream credentials, pick one. The hook URL comes back once.
 */
export function connectForm(
  presets: ConnectionPreset[],
  credentials: Credential[],
  onConnected: (connected: Connected) => Promise<void>,
): HTMLElement {
  const vendor = select("preset", [
    ["", "choose a vendor…"],
    ...presets.map((p): [string, string] => [p.id, vendorName(p)]),
  ]);
  const details = h("div");
  const status = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const preset = presets.find((p) => p.id === vendor.value);
        if (!preset) return;
        const data = new FormData(form);
        const secrets = Object.fromEntries(preset.secrets.map((s) => [s.name, String(data.get(`secret-${s.name}`))]));
        const credentialId = String(data.get("credentialId") ?? "");
        try {
          const made = await api.post("/connections", {
            body: {
              preset: preset.id,
              name: String(data.get("connectionName")),
              secrets,
              ...(credentialId ? { credentialId } : {}),
            },
          });
          await onConnected({ name: made.name, hookUrl: made.hookUrl, preset });
        } catch (error) {
          mount(status, notice("error", failureText(error)));
        }
      },
    },
    h("h2", null, "Connect a vendor"),
    h(
      "p",
      { class: "muted" },
      "A vendor that can only be given a URL posts to its connection's hook URL as it already does; the gateway checks its own proof, maps its records and forwards them.",
    ),
    field("Vendor", vendor),
    details,
    status,
  );
  vendor.addEventListener("change", () => {
    mount(status);
    const preset = presets.find((p) => p.id === vendor.value);
    mount(details, preset ? presetFields(preset, credentials) : null);
  });
  return form;
}

/** The vendor's name as the catalogue's first words say it (before its notes). */
export function vendorName(preset: ConnectionPreset): string {
  return preset.vendor.split(/[:(]/)[0]?.trim() || preset.id;
}

function presetFields(preset: ConnectionPreset, credentials: Credential[]): HTMLElement {
  const name = h("input", {
    name: "connectionName",
    required: true,
    maxlength: "100",
    autocomplete: "off",
    value: vendorName(preset),
  });
  const secrets = preset.secrets.map((s) =>
    h(
      "div",
      { class: "field secret-field" },
      h("label", { for: `secret-${s.name}` }, s.name),
      h("input", {
        id: `secret-${s.name}`,
        name: `secret-${s.name}`,
        type: "password",
        required: true,
        maxlength: "2000",
        autocomplete: "off",
      }),
      h("small", null, s.description),
      h("small", { class: "where" }, h("strong", null, "Where: "), s.where),
    ),
  );
  const active = credentials.filter((c) => c.status === "active");
  return h(
    "div",
    null,
    h(
      "p",
      { class: "muted" },
      `${preset.vendor}. Records: ${preset.kinds.join(" and ")}s; body: ${preset.bodyType}`,
      preset.fetch ? "; each notified record is fetched from the vendor's API." : ".",
    ),
    field("Connection name", name),
    secrets.length
      ? h("fieldset", null, h("legend", null, "The vendor's secrets (never shown again)"), secrets)
      : h("p", { class: "muted" }, "This vendor needs no secret: the hook URL's token is its proof."),
    // One credential is taken as it is; several, the owner picks (docs/connections.md).
    credentials.length > 1
      ? field(
          "Upstream credential",
          select(
            "credentialId",
            (active.length ? active : credentials).map((c) => [c.id, c.name]),
          ),
          "The company's key for the platform its submissions are forwarded with.",
        )
      : null,
    credentials.length === 0
      ? notice("info", "Add an upstream credential first (Credentials): the connection's submissions need one.")
      : null,
    h("button", { type: "submit", class: "primary" }, "Connect"),
  );
}

/** The hook URL once, with a copy button, and how to give it to the vendor. */
export function showHookUrlOnce(box: HTMLElement, connected: Connected): void {
  const output = h("input", {
    type: "text",
    readonly: true,
    value: connected.hookUrl,
    class: "code secret",
    "aria-label": `Hook URL for ${connected.name}`,
  });
  const copied = h("span", { role: "status", class: "muted" });
  const { preset } = connected;
  mount(
    box,
    h(
      "div",
      { class: "card secret-once" },
      h("h2", null, `Hook URL for ${connected.name}`),
      h("p", null, "Give it to the vendor now. It is shown once and never again; rotate it to get a new one."),
      h(
        "div",
        { class: "row" },
        output,
        h(
          "button",
          {
            type: "button",
            onclick: async () => {
              output.select();
              try {
                await navigator.clipboard.writeText(connected.hookUrl);
                copied.textContent = "Copied.";
              } catch {
                copied.textContent = document.execCommand("copy") ? "Copied." : "Select the text and copy it.";
              }
            },
          },
          "Copy hook URL",
        ),
        h("button", { type: "button", onclick: () => mount(box) }, "Done, hide it"),
        copied,
      ),
      preset ? setupNotes(preset) : null,
    ),
  );
  output.focus();
}

function setupNotes(preset: ConnectionPreset): HTMLElement {
  return h(
    "section",
    { class: "setup-notes", "aria-label": "Setting it up at the vendor" },
    h("h3", null, "Setting it up at the vendor"),
    preset.register ? h("p", null, preset.register.docs) : null,
    h(
      "ul",
      null,
      preset.docs.map((doc) => {
        const [url = "", ...note] = doc.split(" ");
        return h(
          "li",
          null,
          h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, url),
          note.length ? ` ${note.join(" ")}` : "",
        );
      }),
    ),
  );
}
