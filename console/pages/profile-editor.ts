import { api, failureText } from "../api.js";
import { field, h, mount, notice } from "../dom.js";
import { expressionEditor } from "../editor/expression-editor.js";
import { link } from "../router.js";
import { isAdmin } from "../session.js";
import type { GoldenReport, Outcome, Sample, Version } from "../types.js";
import { payloadPane } from "./payload-pane.js";
import { outputView } from "./profile-output.js";
import { replaySection } from "./profile-replay.js";
import { expectationOf, samplesView } from "./profile-samples.js";
import { historySection } from "./profile-versions.js";
import { type SuggestedDraft, takeDraft } from "./suggested-draft.js";

const STARTERS: Record<string, string> = {
  lead: '{\n  "fullName": name,\n  "email": email,\n  "phone": phone,\n  "address": address\n}',
  appointment: '{\n  "leadId": lead_id,\n  "startsAt": start,\n  "endsAt": end,\n  "idempotencyKey": booking_id\n}',
  outbound: '{\n  "event": type,\n  "data": data\n}',
};

interface Working {
  expression: string;
  samples: Sample[];
  /** The saved version the working copy equals, if it does. */
  saved: Version | null;
}

/**
 * The profile editor: vendor payload, JSONata expression and live output side by side. Every judgement — the
 * mapped body, validation, golden samples, publishing — comes from the owner API; the page only shows it.
 */
export async function profileEditorPage(view: HTMLElement, params: Record<string, string>): Promise<void> {
  const profileId = params.profileId ?? "";
  const [{ profiles }, { versions }, { keys }] = await Promise.all([
    api.get("/profiles"),
    api.get("/profiles/{profileId}/versions", { params: { profileId } }),
    api.get("/keys"),
  ]);
  const profile = profiles.find((p) => p.id === profileId);
  if (!profile) throw new Error("profile not found");
  const latest = versions[0] ?? null;
  const work: Working = {
    expression: latest?.expression ?? STARTERS[profile.kind] ?? "{}",
    samples: latest?.samples ?? [],
    saved: latest,
  };
  const admin = isAdmin();
  const kind = profile.kind;
  // D-322: a suggestion from captured payloads opens here as the draft; its payloads become samples to check.
  const suggested = admin ? takeDraft(profileId) : null;
  const unchecked = new Set<string>();
  if (suggested) {
    work.expression = suggested.expression;
    work.saved = null;
    const outcomes = await Promise.all(
      suggested.payloads.map((p) =>
        api.post("/profiles/preview", { body: { kind, expression: suggested.expression, payload: p.payload } }),
      ),
    );
    suggested.payloads.forEach((p, i) => {
      work.samples.push({ name: p.name, payload: p.payload, expect: expectationOf(outcomes[i] ?? null) });
      unchecked.add(p.name);
    });
  }
  const replayable = kind === "lead" || kind === "appointment";
  const relevantKeys = keys.filter(
    (k) => !k.revokedAt && (profile.boundKeys.includes(k.id) || profile.boundKeys.length === 0),
  );

  // Pane 1: the vendor payload.
  const payload = payloadPane({
    kind,
    keys: relevantKeys,
    initial: work.samples[0]?.payload ?? {},
    onChange: () => schedule(),
  });
  const fillSources = () => payload.fill(work.samples);

  // Pane 2: the expression.
  const editorHost = h("div", { class: "cm-host" });
  const editor = expressionEditor({
    parent: editorHost,
    doc: work.expression,
    label: "JSONata expression",
    readOnly: !admin,
    onChange: (text) => {
      work.expression = text;
      work.saved = null;
      schedule();
    },
  });

  // Pane 3: the live output, golden samples.
  const output = h(
    "div",
    { class: "output-pane", "aria-live": "polite" },
    h("p", { class: "muted" }, "Type to see the mapped body."),
  );
  const samplesBox = h("div");
  const status = h("div", { "aria-live": "polite", class: "status-area" });
  let lastOutcome: Outcome | null = null;
  let report: GoldenReport | null = null;
  let sequence = 0;
  let timer: number | undefined;

  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void evaluate(), 300);
  }

  async function evaluate(): Promise<void> {
    const mine = ++sequence;
    let body: unknown;
    try {
      body = JSON.parse(payload.text());
    } catch (error) {
      mount(
        output,
        outputView({ ok: false, kind: "payload", message: `the payload is not JSON: ${(error as Error).message}` }),
      );
      return;
    }
    const expression = editor.text();
    let outcome: Outcome;
    let tested: GoldenReport | null;
    try {
      [outcome, tested] = await Promise.all([
        api.post("/profiles/preview", { body: { kind, expression, payload: body } }),
        work.samples.length
          ? api
              .post("/profiles/{profileId}/test", {
                params: { profileId },
                body: { expression, samples: work.samples },
              })
              .catch(() => null)
          : Promise.resolve(null),
      ]);
    } catch (error) {
      // The API refused the request itself (an empty expression, a payload over the size limit).
      if (mine === sequence)
        mount(output, outputView({ ok: false, kind: "request", message: String((error as Error).message) }));
      return;
    }
    if (mine !== sequence) return; // a newer keystroke's answer is on its way
    lastOutcome = outcome;
    report = tested;
    editor.showProblem(outcome.ok === false && outcome.kind === "compile" ? outcome : null);
    mount(output, outputView(outcome));
    renderSamples();
  }

  function renderSamples(): void {
    mount(
      samplesBox,
      samplesView({
        samples: work.samples,
        report,
        admin,
        onUse: (sample) => {
          payload.set(sample.payload);
          schedule();
        },
        onRemove: (index) => {
          work.samples.splice(index, 1);
          work.saved = null;
          void fillSources();
          schedule();
        },
      }),
    );
    publishButton.disabled =
      !admin || !work.samples.length || (report !== null && !report.passed) || unchecked.size > 0;
  }

  const sampleName = h("input", {
    name: "sampleName",
    autocomplete: "off",
    placeholder: `sample ${work.samples.length + 1}`,
  });
  const addSample = h(
    "button",
    {
      type: "button",
      onclick: () => {
        let sample: unknown;
        try {
          sample = JSON.parse(payload.text());
        } catch {
          mount(status, notice("error", "The payload is not JSON."));
          return;
        }
        const name = sampleName.value.trim() || `sample ${work.samples.length + 1}`;
        work.samples.push({ name, payload: sample, expect: expectationOf(lastOutcome) });
        work.saved = null;
        sampleName.value = "";
        sampleName.placeholder = `sample ${work.samples.length + 1}`;
        mount(
          status,
          notice("ok", "Sample added: it expects what the output pane shows now. Save or publish to keep it."),
        );
        void fillSources();
        void evaluate();
      },
    },
    "Add current payload as sample",
  );

  async function saveDraft(): Promise<Version> {
    const saved = await api.post("/profiles/{profileId}/versions", {
      params: { profileId },
      body: { expression: editor.text(), samples: work.samples },
    });
    work.saved = saved.version;
    report = saved.samples;
    renderSamples();
    await history.reload();
    return saved.version;
  }

  const saveButton = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        try {
          const v = await saveDraft();
          mount(status, notice("ok", `Saved draft v${v.version}.`));
        } catch (error) {
          mount(status, notice("error", failureText(error)));
        }
      },
    },
    "Save draft",
  );
  const publishButton = h(
    "button",
    {
      type: "button",
      class: "primary",
      onclick: async () => {
        try {
          const draft = work.saved ?? (await saveDraft());
          const published = await api.post("/profile-versions/{versionId}/publish", {
            params: { versionId: draft.id },
          });
          work.saved = published;
          mount(
            status,
            notice(
              "ok",
              `Published v${published.version}. Bind it to a key on the Keys page, or roll back to it below.` +
                (published.warnings?.length
                  ? ` Dropped keys (put them in extras to keep them): ${[...new Set(published.warnings.map((w) => w.key))].join(", ")}.`
                  : ""),
            ),
          );
          await history.reload();
        } catch (error) {
          mount(status, notice("error", failureText(error, "Not published: ")));
        }
      },
    },
    "Publish",
  );

  const history = historySection({
    profile,
    keys,
    onOpen: (v) => {
      editor.setText(v.expression);
      work.samples = [...v.samples];
      work.saved = v;
      void fillSources();
    },
  });

  mount(
    view,
    h("p", { class: "crumbs" }, link("/profiles", "Profiles"), " / ", profile.name),
    h(
      "div",
      { class: "page-head" },
      h("h1", null, profile.name, " ", h("span", { class: "muted kind" }, profile.kind)),
      admin
        ? h("div", { class: "actions" }, saveButton, publishButton)
        : h("p", { class: "muted" }, "Read-only (viewer)."),
    ),
    status,
    suggested ? suggestionCard(suggested, work.samples, unchecked, () => renderSamples()) : null,
    h(
      "div",
      { class: "editor-grid" },
      h(
        "section",
        { class: "pane", "aria-labelledby": "pane-payload" },
        h("h2", { id: "pane-payload" }, "Vendor payload"),
        payload.element,
      ),
      h(
        "section",
        { class: "pane", "aria-labelledby": "pane-expression" },
        h("h2", { id: "pane-expression" }, "JSONata expression"),
        editorHost,
        h(
          "small",
          { class: "muted" },
          "Helpers: $joinName, $normalizeEmail, $phoneE164, $joinAddress, $toBool… (docs/profiles.md). Esc then Tab leaves the editor.",
        ),
      ),
      h(
        "section",
        { class: "pane", "aria-labelledby": "pane-output" },
        h("h2", { id: "pane-output" }, "Output"),
        output,
      ),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "samples-h" },
      h("h2", { id: "samples-h" }, "Golden samples"),
      samplesBox,
      admin ? h("div", { class: "row" }, field("New sample name", sampleName), addSample) : null,
    ),
    history.element,
    replayable
      ? replaySection({ kind, keys: relevantKeys.length ? relevantKeys : keys, expression: () => editor.text() })
      : null,
  );
  renderSamples();
  await Promise.all([fillSources(), history.reload()]);
  void evaluate();
}

/**
 * The suggestion's fields, each marked with its confidence, what it could not find, and its captured payloads as
 * golden samples whose expected output the owner checks, one by one, before the profile can be published (D-322).
 */
function suggestionCard(
  draft: SuggestedDraft,
  samples: Sample[],
  unchecked: Set<string>,
  changed: () => void,
): HTMLElement {
  const checks = samples
    .filter((s) => unchecked.has(s.name))
    .map((sample) =>
      h(
        "li",
        { class: "suggested-sample" },
        h(
          "label",
          null,
          h("input", {
            type: "checkbox",
            name: "checked",
            onchange: (e: Event) => {
              if ((e.target as HTMLInputElement).checked) unchecked.delete(sample.name);
              else unchecked.add(sample.name);
              changed();
            },
          }),
          ` ${sample.name}: this expected output is right`,
        ),
        h("pre", { class: "mono" }, JSON.stringify(sample.expect, null, 2)),
      ),
    );
  return h(
    "section",
    { class: "card suggestion", "aria-labelledby": "suggestion-h" },
    h("h2", { id: "suggestion-h" }, "Suggested from the captured payloads"),
    h(
      "table",
      null,
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ["Field", "From", "Confidence", "Why"].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        null,
        draft.fields.map((f) =>
          h(
            "tr",
            { "data-field": f.field },
            h("td", null, f.field),
            h("td", { class: "mono" }, f.sourcePath),
            h(
              "td",
              null,
              h("span", { class: `badge confidence-${f.confidence}`, "data-confidence": f.confidence }, f.confidence),
            ),
            h("td", null, f.reason),
          ),
        ),
      ),
    ),
    draft.missing.length ? h("p", { class: "muted" }, `Not found in the payloads: ${draft.missing.join(", ")}.`) : null,
    draft.unmapped.length ? h("p", { class: "muted" }, `Left unmapped: ${draft.unmapped.join(", ")}.`) : null,
    h("p", null, "Check what each captured payload produces; publishing waits until every one is checked."),
    h("ul", { class: "checks" }, checks),
  );
}
