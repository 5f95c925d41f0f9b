import { api, failureText, query } from "../api.js";
import { field, h, mount, notice, select } from "../dom.js";
import { type LiveState, openLiveLog } from "../live.js";
import { navigate, refresh } from "../router.js";
import { isAdmin, resume } from "../session.js";
import type { Submission } from "../types.js";
import { LiveRows } from "./live-rows.js";
import { logQuery, STATUSES, submissionTable, toIso, toLocal } from "./submission-table.js";

const PAGE = 50;

/**
 * The submission log, newest first, filtered by status, key, hook connection, kind and time, and live: new and changed
 * submissions
 * arrive by the owner API's event stream and are applied with the filter still in force (live-rows.ts). Pages are
 * keyset pages (the cursor is the last id of the previous page), so the hundredth page costs what the first does; the
 * URL holds the filter and cursor. Filtered to held payloads, an admin re-maps them after a profile fix (D-308).
 */
export async function submissionsPage(view: HTMLElement, _params: unknown, search: URLSearchParams): Promise<void> {
  const filter = {
    status: search.get("status") ?? "",
    keyId: search.get("keyId") ?? "",
    connectionId: search.get("connectionId") ?? "",
    kind: search.get("kind") ?? "",
    from: search.get("from") ?? "",
    to: search.get("to") ?? "",
    email: search.get("email") ?? "",
    phone: search.get("phone") ?? "",
    extras: search.get("extras") ?? "",
    cursor: search.get("cursor") ?? "",
  };
  // A search by a person or their extras (D-319, D-320): the live rows cannot tell who matches, so only rows already
  // shown are updated (the page is not the log's newest).
  const searching = Boolean(filter.email || filter.phone || filter.extras);
  // The stream opens first and the log is read after it, so every change after the read arrives (live.ts).
  const early: Submission[] = [];
  let apply = (row: Submission) => void early.push(row);
  const liveStatus = h("p", { class: "muted live-status", role: "status", "data-live": "connecting" });
  const showState = (state: LiveState) => {
    liveStatus.dataset.live = state.kind;
    liveStatus.textContent =
      state.kind === "live" ? "● Live" : state.kind === "connecting" ? "Connecting live updates…" : state.reason;
  };
  const live = openLiveLog(
    { keyId: filter.keyId, kind: filter.kind },
    {
      onSubmission: (row) => apply(row),
      onState: showState,
      // Changes may have been missed while the stream was down: read the log again.
      onReconnected: () => refresh(),
      // Overflow: this page fell behind, read the log again; otherwise the session ended (the sign-in page follows).
      onEnded: (reason) => (reason === "overflow" ? refresh() : void resume()),
    },
  );
  await live.ready;
  const [{ keys }, { connections }, page] = await Promise.all([
    api.get("/keys"),
    api.get("/connections"),
    api.get("/submissions", { query: { ...logQuery(filter), limit: PAGE } }),
  ]);
  const names = new Map(keys.map((k) => [k.id, k.name]));
  const connectionNames = new Map(connections.map((c) => [c.id, c.name]));
  const status = select(
    "status",
    [["", "any status"], ...STATUSES.map((s): [string, string] => [s, s])],
    filter.status,
  );
  const key = select("keyId", [["", "any key"], ...keys.map((k): [string, string] => [k.id, k.name])], filter.keyId);
  const connection = select(
    "connectionId",
    [["", "any connection"], ...connections.map((c): [string, string] => [c.id, c.name])],
    filter.connectionId,
  );
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
  const person = h("input", {
    type: "search",
    name: "person",
    placeholder: "e-mail, phone, or text in extras",
    autocomplete: "off",
    value: filter.email || filter.phone || filter.extras,
  });
  const go = (cursor?: string) =>
    navigate(
      `/submissions${query({ status: status.value, keyId: key.value, connectionId: connection.value, kind: kind.value, from: toIso(from.value), to: toIso(to.value), cursor })}`,
    );

  const rows = new LiveRows(page.submissions, page.nextCursor, filter, !filter.cursor && !searching, PAGE);
  const table = h("div");
  const pager = h("nav", { class: "pager", "aria-label": "Pages" });
  const draw = () => {
    mount(
      table,
      submissionTable(
        rows.rows,
        (k) => names.get(k) ?? k,
        undefined,
        (c) => connectionNames.get(c) ?? c,
      ),
    );
    mount(
      pager,
      filter.cursor ? h("button", { type: "button", onclick: () => history.back() }, "← Newer") : null,
      filter.cursor ? h("button", { type: "button", onclick: () => go() }, "Newest") : null,
      rows.nextCursor
        ? h("button", { type: "button", onclick: () => go(rows.nextCursor ?? undefined) }, "Older →")
        : null,
    );
  };
  draw();
  apply = (row) => {
    if (rows.apply(row)) draw();
  };
  for (const row of early.splice(0)) rows.apply(row);
  draw();

  mount(
    view,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Submissions"),
      liveStatus,
      h("button", { type: "button", onclick: () => refresh() }, "Refresh"),
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
        field("Connection", connection),
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
    h(
      "form",
      {
        class: "row find",
        role: "search",
        onsubmit: (e: Event) => {
          e.preventDefault();
          navigate(`/submissions${query(searchOf(person.value.trim()))}`);
        },
      },
      field("Find a person", person),
      h("button", { type: "submit" }, "Search"),
    ),
    filter.status === "held" && isAdmin() ? remapHeld(filter.connectionId, connectionNames) : null,
    table,
    pager,
  );
}

/**
 * Held payloads mapped again (the dead letter's redrive with status "held", D-308): with each connection's current
 * profile version — roll its profile to the fixed version first — those of the connection filtered, or all.
 */
function remapHeld(connectionId: string, names: Map<string, string>): HTMLElement {
  const status = h("div", { "aria-live": "polite" });
  const whose = connectionId ? `of ${names.get(connectionId) ?? connectionId}` : "of every connection";
  return h(
    "div",
    { class: "card remap-held" },
    h(
      "p",
      null,
      `Held payloads ${whose} were stored but could not be mapped. Once the connection's profile is fixed (and rolled to the fixed version), map them again: what maps becomes submissions and is forwarded; what still cannot stays held with the new reason.`,
    ),
    h(
      "button",
      {
        type: "button",
        class: "primary",
        onclick: async () => {
          try {
            const done = await api.post("/dead-letter/redrive", {
              body: { status: "held", ...(connectionId ? { filter: { connectionId } } : { all: true }) },
            });
            const still = done.skipped.length ? `; ${done.skipped.length} still held` : "";
            mount(
              status,
              notice("ok", `Re-mapped ${done.remapped}: ${done.redriven} submission(s) queued${still}.`),
              done.skipped.length
                ? h(
                    "ul",
                    { class: "skipped" },
                    done.skipped.map((s) =>
                      h("li", null, h("span", { class: "mono" }, s.submissionId), `: ${s.reason}`),
                    ),
                  )
                : null,
            );
          } catch (error) {
            mount(status, notice("error", failureText(error)));
          }
        },
      },
      "Re-map held payloads",
    ),
    status,
  );
}

/** What the search box asks the log for: an e-mail (it has an @), a phone (digits and separators only), else extras. */
function searchOf(text: string): Record<string, string> {
  if (!text) return {};
  if (text.includes("@")) return { email: text };
  if (/^[0-9 +().-]+$/.test(text) && /[0-9]{4}/.test(text.replace(/[^0-9]/g, ""))) return { phone: text };
  return { extras: text };
}
