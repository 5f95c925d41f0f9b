import { api } from "../api.js";
import { field, h, json, mount, select } from "../dom.js";
import type { Sample, VendorKey } from "../types.js";

/**
 * The editor's first pane: the vendor payload, typed or pasted, or picked from the golden samples and the latest
 * real payloads of the keys bound to the profile.
 */
export function payloadPane(options: { kind: string; keys: VendorKey[]; initial: unknown; onChange: () => void }) {
  const box = h("textarea", { name: "payload", rows: "16", spellcheck: "false", class: "code" });
  box.value = json(options.initial);
  const source = select("source", [["", "Paste or type a payload…"]]);
  const choices = new Map<string, unknown>();

  source.addEventListener("change", () => {
    if (!choices.has(source.value)) return;
    box.value = json(choices.get(source.value));
    options.onChange();
  });
  box.addEventListener("input", () => {
    source.value = "";
    options.onChange();
  });

  /** Lists the samples (as they are now) and the keys' recent payloads. */
  async function fill(samples: Sample[]): Promise<void> {
    mount(source, h("option", { value: "" }, "Paste or type a payload…"));
    choices.clear();
    if (samples.length) {
      const group = h("optgroup", { label: "Golden samples" });
      samples.forEach((s, i) => {
        choices.set(`sample:${i}`, s.payload);
        group.append(h("option", { value: `sample:${i}` }, s.name));
      });
      source.append(group);
    }
    if (options.kind !== "lead" && options.kind !== "appointment") return;
    for (const key of options.keys) {
      const { payloads } = await api.get("/keys/{keyId}/payloads", {
        params: { keyId: key.id },
        query: { limit: 10, kind: options.kind },
      });
      if (!payloads.length) continue;
      const group = h("optgroup", { label: `Recent payloads of ${key.name}` });
      for (const p of payloads) {
        choices.set(`sub:${p.submissionId}`, p.payload);
        const label = `${p.submissionId} · ${new Date(p.createdAt).toLocaleString()}`;
        group.append(h("option", { value: `sub:${p.submissionId}` }, label));
      }
      source.append(group);
    }
  }

  return {
    element: [field("Payload source", source), field("Payload (JSON)", box)],
    text: () => box.value,
    set(payload: unknown) {
      box.value = json(payload);
      source.value = "";
    },
    fill,
  };
}
