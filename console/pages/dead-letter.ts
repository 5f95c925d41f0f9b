import { api, failureText, type OwnerAnswer, query } from "../api.js";
import { field, h, mount, notice, select } from "../dom.js";
import { navigate } from "../router.js";
import { isAdmin } from "../session.js";
import { logQuery, submissionTable, toIso, toLocal } from "./submission-table.js";

const CHUNK = 100;

/**
 * The dead letter: failed submissions, redriven one by one, as a selection or every one matching the filter,
 * optionally mapped again with another profile version. Long redrives go in chunks behind a progress bar, then the
 * page follows what the redriven submissions become.
 */
export async function deadLetterPage(view: HTMLElement, _params: unknown, search: URLSearchParams): Promise<void> {
  const filter = {
    keyId: search.get("keyId") ?? "",
    kind: search.get("kind") ?? "",
    from: search.get("from") ?? "",
    to: search.get("to") ?? "",
    cursor: search.get("cursor") ?? "",
  };
  const [{ keys }, { profiles }, page] = await Promise.all([
    api.get("/keys"),
    api.get("/profiles"),
    api.get("/submissions", { query: { ...logQuery(filter), status: "failed", limit: 50 } }),
  ]);
  const versions = (
    await Promise.all(
      profiles
        .filter((p) => p.kind !== "outbound")
        .map(async (p) =>
          (
            await api.get("/profiles/{profileId}/versions", { params: { profileId: p.id } })
          ).versions
            .filter((v) => v.status === "published")
            .map((v): [string, string] => [v.id, `${p.name} v${v.version} (${p.kind})`]),
        ),
    )
  ).flat();
  const names = new Map(keys.map((k) => [k.id, k.name]));
  const selected = new Set<string>();
  const key = select("keyId", [["", "any key"], ...keys.map((k): [string, string] => [k.id, k.name])], filter.keyId);
  const kind = select(
    "kind",
    [
      ["", "any kind"],
      ["lead", "lead"],
      ["appointment", "appointment"],
    ],
    filter.kind,
  );
  const from = h("input", { type: "datetime-local", name: "from", value: toLocal(filter.from) });
  const to = h("input", { type: "datetime-local", name: "to", value: toLocal(filter.to) });
  const remap = select("profileVersionId", [["", "no: send the stored canonical body"], ...versions]);
  const progress = h("div", { "aria-live": "polite", class: "progress-area" });
  const selectedButton = h("button", { type: "button", class: "primary", disabled: true }, "Redrive selected");
  const current = () => ({ keyId: key.value, kind: kind.value, from: toIso(from.value), to: toIso(to.value) });

  async function matchingIds(): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const p: OwnerAnswer<"get", "/submissions"> = await api.get("/submissions", {
        query: { ...logQuery({ ...current(), cursor }), status: "failed", limit: 200 },
      });
      ids.push(...p.submissions.map((s) => s.submissionId));
      cursor = p.nextCursor;
    } while (cursor);
    return ids;
  }

  async function redrive(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const bar = h("progress", { max: String(ids.length), value: "0" });
    const label = h("span", { id: "redrive-label" }, `Redriving 0 of ${ids.length}…`);
    bar.setAttribute("aria-labelledby", "redrive-label");
    mount(progress, h("div", { class: "card" }, label, bar));
    let done = 0;
    let remapped = 0;
    const skipped: string[] = [];
    try {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        const r = await api.post("/dead-letter/redrive", {
          body: { submissionIds: chunk, ...(remap.value ? { profileVersionId: remap.value } : {}) },
        });
        done += chunk.length;
        remapped += r.remapped;
        skipped.push(...r.skipped.map((s) => `${s.submissionId}: ${s.reason}`));
        bar.value = done;
        label.textContent = `Redriving ${done} of ${ids.length}…`;
      }
    } catch (error) {
      progress.append(notice("error", failureText(error)));
      return;
    }
    label.textContent = `Redriven ${ids.length - skipped.length} of ${ids.length}${remapped ? `, ${remapped} re-mapped` : ""}. Following them…`;
    if (skipped.length) progress.append(notice("error", `Skipped: ${skipped.join("; ")}`));
    await follow(ids.slice(0, 50), bar, label);
  }

  /** Polls the redriven submissions until they settle (at most a minute). */
  async function follow(ids: string[], bar: HTMLProgressElement, label: HTMLElement): Promise<void> {
    bar.max = ids.length;
    for (let round = 0; round < 60; round++) {
      const states = await Promise.all(
        ids.map((id) => api.get("/submissions/{submissionId}", { params: { submissionId: id } }).then((s) => s.status)),
      );
      const forwarded = states.filter((s) => s === "forwarded").length;
      const failed = states.filter((s) => s === "failed").length;
      bar.value = forwarded + failed;
      label.textContent = `Forwarded ${forwarded} of ${ids.length}${failed ? `, failed again ${failed}` : ""}.`;
      if (forwarded + failed === ids.length) return;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  const list = submissionTable(
    page.submissions,
    (k) => names.get(k) ?? k,
    isAdmin()
      ? {
          selected,
          onChange: () => {
            selectedButton.disabled = selected.size === 0;
            selectedButton.textContent = `Redrive selected (${selected.size})`;
          },
        }
      : undefined,
  );
  selectedButton.addEventListener("click", () => void redrive([...selected]));
  mount(
    view,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Dead letter"),
      h("button", { type: "button", onclick: () => void deadLetterPage(view, _params, search) }, "Refresh"),
    ),
    h(
      "p",
      { class: "muted" },
      "Submissions the platform refused or that ran out of retries. Fix the cause (a profile, a credential), then send them again.",
    ),
    h(
      "form",
      {
        class: "card filters",
        role: "search",
        onsubmit: (e: Event) => {
          e.preventDefault();
          navigate(`/dead-letter${query(current())}`);
        },
      },
      h(
        "div",
        { class: "row" },
        field("Key", key),
        field("Kind", kind),
        field("From", from),
        field("To", to),
        h("button", { type: "submit" }, "Filter"),
      ),
    ),
    isAdmin()
      ? h(
          "section",
          { class: "card" },
          h("h2", null, "Redrive"),
          h(
            "div",
            { class: "row" },
            field("Map again with", remap),
            selectedButton,
            h(
              "button",
              { type: "button", onclick: async () => void redrive(await matchingIds()) },
              "Redrive all matching the filter",
            ),
          ),
          progress,
        )
      : null,
    list,
    h(
      "nav",
      { class: "pager", "aria-label": "Pages" },
      filter.cursor ? h("button", { type: "button", onclick: () => history.back() }, "← Newer") : null,
      page.nextCursor
        ? h(
            "button",
            {
              type: "button",
              onclick: () => navigate(`/dead-letter${query({ ...current(), cursor: page.nextCursor })}`),
            },
            "Older →",
          )
        : null,
    ),
  );
}
