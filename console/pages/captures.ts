import { api, failureText } from "../api.js";
import { h, json, mount, notice, time } from "../dom.js";
import { link, navigate } from "../router.js";
import { isAdmin } from "../session.js";
import { storeDraft } from "./suggested-draft.js";

/**
 * A vendor key's (or its hook connection's) capture mode and what it captured (D-315): turned on, the vendor is asked
 * for a test lead and its payloads show here exactly as they arrived; "Suggest from the captured payloads" makes a
 * profile and opens it in the editor with the suggestion as a draft and the payloads as samples to check.
 */
export async function capturesPage(view: HTMLElement, params: Record<string, string>): Promise<void> {
  const keyId = params.keyId ?? "";
  const [{ keys }, listed] = await Promise.all([
    api.get("/keys"),
    api.get("/keys/{keyId}/captures", { params: { keyId } }),
  ]);
  const key = keys.find((k) => k.id === keyId);
  if (!key) throw new Error("key not found");
  const admin = isAdmin();
  const status = h("div", { "aria-live": "polite" });
  const on = listed.captureSince !== null;
  const kinds = [...new Set(listed.captures.map((c) => c.kind))];
  const kind =
    kinds[0] ??
    (key.scopes.includes("appointments:write") && key.partnerType === "booking_vendor" ? "appointment" : "lead");

  const toggle = h(
    "button",
    {
      type: "button",
      class: on ? "" : "primary",
      onclick: async () => {
        try {
          await api.put("/keys/{keyId}/capture", { params: { keyId }, body: { on: !on } });
          await capturesPage(view, params);
        } catch (error) {
          mount(status, notice("error", failureText(error)));
        }
      },
    },
    on ? "Stop capturing" : "Start capturing",
  );

  const suggest = h(
    "button",
    {
      type: "button",
      class: "primary",
      disabled: listed.captures.length === 0,
      onclick: async () => {
        try {
          const payloads = listed.captures.map((c) => c.payload);
          const suggestion = await api.post("/profile-suggestions", { body: { kind, payloads } });
          const profile = await api.post("/profiles", {
            body: {
              name: `${key.name} (suggested)`,
              kind,
              description: `Suggested from ${payloads.length} captured payload(s)`,
            },
          });
          storeDraft(profile.id, {
            expression: suggestion.expression,
            fields: suggestion.fields,
            missing: suggestion.missing,
            unmapped: suggestion.unmapped,
            payloads: listed.captures.map((c, i) => ({ name: `captured ${i + 1}`, payload: c.payload })),
          });
          navigate(`/profiles/${profile.id}`);
        } catch (error) {
          mount(status, notice("error", failureText(error, "No suggestion: ")));
        }
      },
    },
    "Suggest from the captured payloads",
  );

  mount(
    view,
    h("p", { class: "crumbs" }, link("/keys", "Keys"), " / ", key.name, " / captures"),
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Captured payloads"),
      admin ? h("div", { class: "actions" }, toggle, suggest) : h("p", { class: "muted" }, "Read-only (viewer)."),
    ),
    status,
    h(
      "p",
      { class: "capture-state", "data-capturing": String(on) },
      on
        ? `Capturing since ${time(listed.captureSince)}: what the vendor sends is stored here, never mapped or forwarded.`
        : "Not capturing: the key maps what it receives as usual.",
      ` The newest ${listed.keep} are kept.`,
    ),
    listed.captures.length
      ? h(
          "ol",
          { class: "captures" },
          listed.captures.map((c) =>
            h(
              "li",
              { class: "card capture" },
              h("p", null, time(c.createdAt), " · ", c.kind, " · ", `${c.bytes} bytes`),
              h("pre", { class: "mono" }, json(c.payload)),
            ),
          ),
        )
      : h("p", { class: "muted" }, "Nothing captured yet: ask the vendor to send a test lead."),
  );
}
