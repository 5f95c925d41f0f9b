import { api, failureText } from "../api.js";
import { confirmDialog } from "../confirm.js";
import { badge, h, mount, notice, time } from "../dom.js";
import { link } from "../router.js";
import { isAdmin } from "../session.js";
import type { VendorKey } from "../types.js";
import { bindingsForm, type Rotated, rotateKeyForm, showRotated } from "./key-actions.js";
import { createKeyForm, showSecretOnce } from "./key-form.js";

/** A key just issued: shown by the next render of the page, then forgotten. */
let issued: { name: string; key: string } | null = null;
/** A key just rotated, or what the last action said: likewise. */
let rotated: Rotated | null = null;
let said: string | null = null;

/**
 * A key's posting docs (D-325): the page the owner sends to the vendor, opened in a tab or downloaded. Every owner may
 * read them; the page comes from the owner API with the session's cookie.
 */
function postingDocsLinks(k: VendorKey): HTMLElement {
  const href = `/owner/v1/keys/${encodeURIComponent(k.id)}/posting-docs/page`;
  return h(
    "div",
    { class: "actions" },
    h("a", { href, target: "_blank", rel: "noopener", "aria-label": `Posting docs of ${k.name}` }, "Posting docs"),
    h(
      "a",
      { href, download: `posting-docs-${k.keyPrefix}.html`, "aria-label": `Download the posting docs of ${k.name}` },
      "Download",
    ),
  );
}

/**
 * Vendor keys: issue one (the secret is shown once), rotate one with an overlap for the old secret, change its
 * bindings (profile versions, credential, answer mode), revoke with confirmation; 24-hour counts; each key's posting
 * docs for its vendor.
 */
export async function keysPage(view: HTMLElement): Promise<void> {
  const [{ keys }, { keys: counts }, { profiles }, { credentials }, { connections }] = await Promise.all([
    api.get("/keys"),
    api.get("/insights/key-counts", { query: { hours: 24 } }),
    api.get("/profiles"),
    api.get("/credentials"),
    api.get("/connections"),
  ]);
  // A hook connection's own key is reached by its hook URL: it has no posting docs (D-325).
  const hookKeys = new Set(connections.map((c) => c.vendorKeyId));
  const versions = (
    await Promise.all(
      profiles
        .filter((p) => p.kind !== "outbound")
        .map(async (p) =>
          (
            await api.get("/profiles/{profileId}/versions", { params: { profileId: p.id } })
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
  const status = h("div", { "aria-live": "polite" }, said ? notice("ok", said) : null);
  said = null;
  const actionBox = h("div");
  const afterRotation = async (r: Rotated) => {
    rotated = r;
    await keysPage(view);
  };
  const afterSave = async (message: string) => {
    said = message;
    await keysPage(view);
  };
  const inOverlap = (k: VendorKey) => k.previousValidUntil !== null && Date.parse(k.previousValidUntil) > Date.now();

  const rows = keys.map((k) => {
    const c = countOf.get(k.id) ?? { accepted: 0, forwarded: 0, failed: 0 };
    const lead = versionLabel(k.leadProfileVersionId);
    const appointment = versionLabel(k.appointmentProfileVersionId);
    return h(
      "tr",
      { class: k.revokedAt ? "revoked" : null },
      h(
        "td",
        null,
        h("strong", null, k.name),
        h("div", null, h("code", null, k.keyPrefix, "…")),
        h("div", null, link(`/keys/${encodeURIComponent(k.id)}/captures`, k.captureSince ? "Capturing…" : "Captures")),
      ),
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
        !k.revokedAt && inOverlap(k)
          ? h("div", { class: "muted" }, "previous key works until ", time(k.previousValidUntil))
          : null,
      ),
      h(
        "td",
        null,
        !k.revokedAt && !hookKeys.has(k.id) ? postingDocsLinks(k) : null,
        isAdmin() && !k.revokedAt
          ? h("div", { class: "actions" }, [
              h(
                "button",
                {
                  type: "button",
                  "aria-label": `Rotate ${k.name}`,
                  onclick: () => mount(actionBox, rotateKeyForm(k, afterRotation)),
                },
                "Rotate",
              ),
              h(
                "button",
                {
                  type: "button",
                  "aria-label": `Edit bindings of ${k.name}`,
                  onclick: () => mount(actionBox, bindingsForm(k, credentials, versions, afterSave)),
                },
                "Bindings",
              ),
              h(
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
                      await api.post("/keys/{keyId}/revoke", { params: { keyId: k.id } });
                      await keysPage(view);
                    } catch (error) {
                      mount(status, notice("error", failureText(error)));
                    }
                  },
                },
                "Revoke",
              ),
            ])
          : null,
      ),
    );
  });

  mount(
    view,
    h("h1", null, "Keys"),
    status,
    secretBox,
    actionBox,
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
    isAdmin()
      ? createKeyForm(
          async (created) => {
            issued = created;
            await keysPage(view);
          },
          credentials,
          versions,
        )
      : null,
  );
  if (issued) showSecretOnce(secretBox, issued.name, issued.key);
  if (rotated) showRotated(secretBox, rotated);
  issued = null;
  rotated = null;
}
