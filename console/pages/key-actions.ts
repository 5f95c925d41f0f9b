import { api, failureText } from "../api.js";
import { field, h, mount, notice, select, time } from "../dom.js";
import type { Profile, VendorKey, Version } from "../types.js";
import { showSecretOnce } from "./key-form.js";

const OVERLAPS: [string, string][] = [
  ["0", "none: the old key stops now"],
  ["3600", "1 hour"],
  ["86400", "1 day"],
  ["604800", "7 days"],
  ["2592000", "30 days"],
];

const failure = (error: unknown) => notice("error", failureText(error));

/** A key just rotated: its new secret (shown once) and until when the old one still works. */
export interface Rotated {
  name: string;
  key: string;
  previousValidUntil: string | null;
}

/** Rotating a key's secret, with the overlap during which the vendor's old key keeps working. */
export function rotateKeyForm(k: VendorKey, onRotated: (rotated: Rotated) => Promise<void>): HTMLElement {
  const overlap = select("overlapSeconds", OVERLAPS, "86400");
  const status = h("div", { "aria-live": "polite" });
  return h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          const rotated = await api.post("/keys/{keyId}/rotate", {
            params: { keyId: k.id },
            body: { overlapSeconds: Number(overlap.value) },
          });
          await onRotated({ name: rotated.name, key: rotated.key, previousValidUntil: rotated.previousValidUntil });
        } catch (error) {
          mount(status, failure(error));
        }
      },
    },
    h("h2", null, `Rotate ${k.name}`),
    h(
      "p",
      { class: "muted" },
      "A new secret is issued and shown once. The vendor's current key keeps working for the overlap, so it can switch without a refused request.",
    ),
    field(`Overlap for ${k.name}`, overlap),
    h("button", { type: "submit", class: "primary" }, "Rotate key"),
    status,
  );
}

/** The new key once, and the old key's end of overlap. */
export function showRotated(box: HTMLElement, rotated: Rotated): void {
  showSecretOnce(box, rotated.name, rotated.key);
  box.firstElementChild?.append(
    h(
      "p",
      { class: "overlap-note" },
      rotated.previousValidUntil
        ? `The previous key keeps working until ${time(rotated.previousValidUntil)}.`
        : "The previous key no longer works.",
    ),
  );
}

/** What a key is bound to: its profile versions, its upstream credential, its answer mode. */
export function bindingsForm(
  k: VendorKey,
  credentials: { id: string; name: string }[],
  versions: (Version & { profile: Profile })[],
  onSaved: (message: string) => Promise<void>,
): HTMLElement {
  // Published versions, and the one bound now whatever it is (so saving keeps it).
  const choices = (kind: string, bound: string | null): [string, string][] => [
    ["", "none (canonical body)"],
    ...versions
      .filter((v) => v.profile.kind === kind && (v.status === "published" || v.id === bound))
      .map((v): [string, string] => [v.id, `${v.profile.name} v${v.version}`]),
  ];
  const lead = select("leadProfileVersionId", choices("lead", k.leadProfileVersionId), k.leadProfileVersionId ?? "");
  const appointment = select(
    "appointmentProfileVersionId",
    choices("appointment", k.appointmentProfileVersionId),
    k.appointmentProfileVersionId ?? "",
  );
  const credential = select(
    "credentialId",
    credentials.map((c) => [c.id, c.name]),
    k.credentialId,
  );
  const mode = select(
    "responseMode",
    [
      ["async", "async: 202 at once"],
      ["sync", "sync: wait for the platform's answer"],
    ],
    k.responseMode,
  );
  const status = h("div", { "aria-live": "polite" });
  return h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          await api.patch("/keys/{keyId}", {
            params: { keyId: k.id },
            body: {
              leadProfileVersionId: lead.value || null,
              appointmentProfileVersionId: appointment.value || null,
              credentialId: credential.value,
              responseMode: mode.value as VendorKey["responseMode"],
            },
          });
          await onSaved(`Saved the bindings of ${k.name}.`);
        } catch (error) {
          mount(status, failure(error));
        }
      },
    },
    h("h2", null, `Bindings of ${k.name}`),
    h(
      "div",
      { class: "row" },
      field(`Lead profile of ${k.name}`, lead),
      field(`Appointment profile of ${k.name}`, appointment),
    ),
    h("div", { class: "row" }, field(`Credential of ${k.name}`, credential), field(`Response mode of ${k.name}`, mode)),
    h("button", { type: "submit", class: "primary" }, "Save bindings"),
    status,
  );
}
