import { ApiFailure, api } from "../api.js";
import { confirmDialog } from "../confirm.js";
import { badge, field, h, mount, notice, select, time } from "../dom.js";
import { link } from "../router.js";
import { isAdmin } from "../session.js";
import type { Profile, VendorKey, Version } from "../types.js";

interface Counts {
  keyId: string;
  accepted: number;
  forwarded: number;
  failed: number;
}

/** A key just issued: shown by the next render of the page, then forgotten. */
let issued: { name: string; key: string } | null = null;

/** Vendor keys: issue one (the secret is shown once), revoke with confirmation, bindings and 24-hour counts. */
export async function keysPage(view: HTMLElement): Promise<void> {
  const [{ keys }, { keys: counts }, { profiles }, { credentials }] = await Promise.all([
    api<{ keys: VendorKey[] }>("GET", "/keys"),
    api<{ keys: Counts[] }>("GET", "/insights/key-counts?hours=24"),
    api<{ profiles: Profile[] }>("GET", "/profiles"),
    api<{ credentials: { id: string; name: string }[] }>("GET", "/credentials"),
  ]);
  const versions = (
    await Promise.all(
      profiles
        .filter((p) => p.kind !== "outbound")
        .map(async (p) =>
          (
            await api<{ versions: Version[] }>("GET", `/profiles/${p.id}/versions`)
          ).versions.map((v) => ({ ...v, profile: p })),
        ),
    )
  ).flat();
  const versionLabel = (id: string | null) => {
    const v = versions.find((x) => x.id === id);
    return v ? link(`/profiles/${v.profile.id}`, `${v.profile.name} v${v.version}`) : null;
  };
  const countOf = new Map(counts.map((c) => [c.keyId, c]));
  const secretBox = h("div", { "aria-live": "polite" });
  const status = h("div", { "aria-live": "polite" });

  const rows = keys.map((k) => {
    const c = countOf.get(k.id) ?? { accepted: 0, forwarded: 0, failed: 0 };
    const lead = versionLabel(k.leadProfileVersionId);
    const appointment = versionLabel(k.appointmentProfileVersionId);
    return h(
      "tr",
      { class: k.revokedAt ? "revoked" : null },
      h("td", null, h("strong", null, k.name), h("div", null, h("code", null, k.keyPrefix, "…"))),
      h("td", null, k.partnerType.replace("_", " "), h("div", { class: "muted" }, k.scopes.join(" "))),
      h(
        "td",
        null,
        lead ? ["leads: ", lead] : null,
        lead && appointment ? h("br") : null,
        appointment ? ["appointments: ", appointment] : null,
        !lead && !appointment ? h("span", { class: "muted" }, "canonical (no profile)") : null,
      ),
      h(
        "td",
        { class: "num" },
        h("a", { href: `/console/submissions?keyId=${encodeURIComponent(k.id)}`, "data-link": "" }, String(c.accepted)),
      ),
      h("td", { class: "num" }, String(c.forwarded)),
      h(
        "td",
        { class: "num" },
        c.failed
          ? h(
              "a",
              { href: `/console/dead-letter?keyId=${encodeURIComponent(k.id)}`, "data-link": "" },
              String(c.failed),
            )
          : "0",
      ),
      h(
        "td",
        null,
        k.revokedAt ? [badge("revoked"), h("div", { class: "muted" }, time(k.revokedAt))] : badge("active"),
      ),
      h(
        "td",
        null,
        isAdmin() && !k.revokedAt
          ? h(
              "button",
              {
                type: "button",
                class: "danger",
                "aria-label": `Revoke ${k.name}`,
                onclick: async () => {
                  if (
                    !(await confirmDialog(
                      `Revoke ${k.name}? The vendor's requests are refused from now on. This cannot be undone.`,
                      "Revoke key",
                    ))
                  )
                    return;
                  try {
                    await api("POST", `/keys/${k.id}/revoke`);
                    await keysPage(view);
                  } catch (error) {
                    mount(status, notice("error", error instanceof ApiFailure ? error.message : String(error)));
                  }
                },
              },
              "Revoke",
            )
          : null,
      ),
    );
  });

  mount(
    view,
    h("h1", null, "Keys"),
    status,
    secretBox,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        null,
        h("caption", { class: "sr-only" }, "Vendor keys with their submissions of the last 24 hours"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Key", "Type", "Bound profiles", "Accepted 24 h", "Forwarded 24 h", "Failed 24 h", "Status", ""].map((t) =>
              h("th", { scope: "col" }, t),
            ),
          ),
        ),
        h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: "8" }, "No keys yet."))),
      ),
    ),
    isAdmin() ? createForm(view, credentials, versions) : null,
  );
  if (issued) showSecretOnce(secretBox, issued.name, issued.key);
  issued = null;
}

function createForm(
  view: HTMLElement,
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
        const scopes = [
          leadsScope.checked ? "leads:write" : null,
          apptScope.checked ? "appointments:write" : null,
        ].filter(Boolean);
        try {
          const created = await api<VendorKey & { key: string }>("POST", "/keys", {
            name: name.value,
            partnerType: partnerType.value,
            scopes,
            credentialId: credential.value,
            leadProfileVersionId: leadProfile.value || null,
            appointmentProfileVersionId: appointmentProfile.value || null,
          });
          issued = { name: created.name, key: created.key };
          await keysPage(view);
        } catch (error) {
          mount(status, notice("error", error instanceof ApiFailure ? error.message : String(error)));
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
function showSecretOnce(box: HTMLElement, name: string, key: string): void {
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
