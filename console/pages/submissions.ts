import { api, query } from "../api.js";
import { field, h, mount, select } from "../dom.js";
import { navigate } from "../router.js";
import type { Submission, VendorKey } from "../types.js";
import { submissionTable, toIso, toLocal } from "./submission-table.js";

const STATUSES = ["queued", "waiting", "forwarding", "forwarded", "failed"];

/**
 * The submission log, newest first, filtered by status, key, kind and time. Pages are keyset pages (the cursor is the
 * last id of the previous page), so the hundredth page costs what the first does; the URL holds the filter and cursor.
 */
export async function submissionsPage(view: HTMLElement, _params: unknown, search: URLSearchParams): Promise<void> {
  const filter = {
    status: search.get("status") ?? "",
    keyId: search.get("keyId") ?? "",
    kind: search.get("kind") ?? "",
    from: search.get("from") ?? "",
    to: search.get("to") ?? "",
    cursor: search.get("cursor") ?? "",
  };
  const [{ keys }, page] = await Promise.all([
    api<{ keys: VendorKey[] }>("GET", "/keys"),
    api<{ submissions: Submission[]; nextCursor: string | null }>(
      "GET",
      `/submissions${query({ ...filter, limit: 50 })}`,
    ),
  ]);
  const names = new Map(keys.map((k) => [k.id, k.name]));
  const status = select(
    "status",
    [["", "any status"], ...STATUSES.map((s): [string, string] => [s, s])],
    filter.status,
  );
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
  const id = h("input", { type: "search", name: "id", placeholder: "sub_…", autocomplete: "off" });
  const go = (cursor?: string) =>
    navigate(
      `/submissions${query({ status: status.value, keyId: key.value, kind: kind.value, from: toIso(from.value), to: toIso(to.value), cursor })}`,
    );

  mount(
    view,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Submissions"),
      h("button", { type: "button", onclick: () => void submissionsPage(view, _params, search) }, "Refresh"),
    ),
    h(
      "form",
      {
        class: "card filters",
        role: "search",
        onsubmit: (e: Event) => {
          e.preventDefault();
          go();
        },
      },
      h(
        "div",
        { class: "row" },
        field("Status", status),
        field("Key", key),
        field("Kind", kind),
        field("From", from),
        field("To", to),
        h("button", { type: "submit" }, "Filter"),
      ),
    ),
    h(
      "form",
      {
        class: "row find",
        onsubmit: (e: Event) => {
          e.preventDefault();
          if (id.value.trim()) navigate(`/submissions/${encodeURIComponent(id.value.trim())}`);
        },
      },
      field("Find by id", id),
      h("button", { type: "submit" }, "Open"),
    ),
    submissionTable(page.submissions, (k) => names.get(k) ?? k),
    h(
      "nav",
      { class: "pager", "aria-label": "Pages" },
      filter.cursor ? h("button", { type: "button", onclick: () => history.back() }, "← Newer") : null,
      filter.cursor ? h("button", { type: "button", onclick: () => go() }, "Newest") : null,
      page.nextCursor
        ? h("button", { type: "button", onclick: () => go(page.nextCursor ?? undefined) }, "Older →")
        : null,
    ),
  );
}
