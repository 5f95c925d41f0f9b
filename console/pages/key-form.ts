import { api, failureText } from "../api.js";
import { field, h, mount, notice, select } from "../dom.js";
import type { Profile, VendorKey, Version } from "../types.js";

/** The form that issues a vendor key: name, partner type, credential, profile versions, scopes. */
export function createKeyForm(
  onIssued: (created: { name: string; key: string }) => Promise<void>,
  credentials: { id: string; name: string }[],
  versions: (Version & { profile: Profile })[],
): HTMLElement {
  const published = (kind: string): [string, string][] => [
    ["", "none (canonical body)"],
    ...versions
      .filter((v) => v.profile.kind === kind && v.status === "published")
      .map((v): [string, string] => [v.id, `${v.profile.name} v${v.version}`]),
  ];
  const name = h("input", { name: "keyName", required: true, maxlength: "100", autocomplete: "off" });
  const partnerType = select("partnerType", [
    ["lead_source", "lead source"],
    ["booking_vendor", "booking vendor"],
  ]);
  const credential = select(
    "credentialId",
    credentials.map((c) => [c.id, c.name]),
  );
  const leadProfile = select("leadProfileVersionId", published("lead"));
  const appointmentProfile = select("appointmentProfileVersionId", published("appointment"));
  const leadsScope = h("input", { type: "checkbox", name: "scopeLeads", checked: true });
  const apptScope = h("input", { type: "checkbox", name: "scopeAppointments" });
  const status = h("div", { "aria-live": "polite" });
  return h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const scopes: VendorKey["scopes"] = [];
        if (leadsScope.checked) scopes.push("leads:write");
        if (apptScope.checked) scopes.push("appointments:write");
        try {
          const created = await api.post("/keys", {
            body: {
              name: name.value,
              partnerType: partnerType.value as VendorKey["partnerType"],
              scopes,
              credentialId: credential.value,
              leadProfileVersionId: leadProfile.value || null,
              appointmentProfileVersionId: appointmentProfile.value || null,
            },
          });
          await onIssued({ name: created.name, key: created.key });
        } catch (error) {
          mount(status, notice("error", failureText(error)));
        }
      },
    },
    h("h2", null, "Issue a key"),
    h(
      "div",
      { class: "row" },
      field("Vendor name", name),
      field("Partner type", partnerType),
      field("Upstream credential", credential),
    ),
    h("div", { class: "row" }, field("Lead profile", leadProfile), field("Appointment profile", appointmentProfile)),
    h(
      "fieldset",
      null,
      h("legend", null, "Scopes"),
      h("label", { class: "check" }, leadsScope, " leads:write"),
      h("label", { class: "check" }, apptScope, " appointments:write"),
    ),
    h("button", { type: "submit", class: "primary" }, "Issue key"),
    status,
  );
}

/** The whole key, once: it is not stored and cannot be shown again. */
export function showSecretOnce(box: HTMLElement, name: string, key: string): void {
  const output = h("input", {
    type: "text",
    readonly: true,
    value: key,
    class: "code secret",
    "aria-label": `Key for ${name}`,
  });
  const copied = h("span", { role: "status", class: "muted" });
  mount(
    box,
    h(
      "div",
      { class: "card secret-once" },
      h("h2", null, `Key for ${name}`),
      h("p", null, "Copy it now and hand it to the vendor. It is shown once and never again."),
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
                await navigator.clipboard.writeText(key);
                copied.textContent = "Copied.";
              } catch {
                copied.textContent = document.execCommand("copy") ? "Copied." : "Select the text and copy it.";
              }
            },
          },
          "Copy",
        ),
        h("button", { type: "button", onclick: () => mount(box) }, "Done, hide it"),
        copied,
      ),
    ),
  );
  output.focus();
}
