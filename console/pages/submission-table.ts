import type { OwnerRequest } from "../../src/gateway/owner/operations.js";
import { badge, h, time } from "../dom.js";
import { link } from "../router.js";
import type { Submission } from "../types.js";

/**
 * The submissions table shared by the log and the dead letter; `select` adds a checkbox per row. A hook connection's
 * submissions show the connection, why one is held or only noted, and the vendor's test marker.
 */
export function submissionTable(
  rows: Submission[],
  keyName: (id: string) => string,
  select?: { selected: Set<string>; onChange: () => void },
  connectionName: (id: string) => string = (id) => id,
): HTMLElement {
  const head = [
    "Submission",
    "Accepted",
    "Person",
    "Key",
    "Connection",
    "Kind",
    "Status",
    "Test",
    "Attempts",
    "Upstream",
    "Last error",
    "Held reason / note",
    "Extras",
  ];
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "submissions" },
      h("caption", { class: "sr-only" }, "Submissions, newest first"),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          select ? h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Select")) : null,
          head.map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        null,
        rows.length
          ? rows.map((s) =>
              h(
                "tr",
                { "data-status": s.status },
                select ? h("td", null, checkbox(s, select)) : null,
                h("td", null, link(`/submissions/${s.submissionId}`, s.submissionId, { class: "mono" })),
                h("td", null, time(s.createdAt)),
                h("td", { class: "person" }, personCell(s)),
                h("td", null, keyName(s.vendorKeyId)),
                h("td", null, s.connectionId ? connectionName(s.connectionId) : "—"),
                h("td", null, s.kind, s.recordAction ? h("div", { class: "muted" }, s.recordAction) : null),
                h("td", null, badge(s.status)),
                h("td", null, s.test ? badge("test") : ""),
                h("td", { class: "num" }, String(s.attempts)),
                h("td", { class: "num" }, s.upstreamStatus === null ? "—" : String(s.upstreamStatus)),
                h("td", { class: "error-text" }, s.lastError ?? ""),
                h("td", { class: s.heldReason ? "held-reason" : "note" }, s.heldReason ?? s.note ?? ""),
                h("td", { class: "extras mono" }, s.extras ? JSON.stringify(s.extras).slice(0, 160) : ""),
              ),
            )
          : h("tr", null, h("td", { colspan: String(head.length + (select ? 1 : 0)) }, "Nothing here.")),
      ),
    ),
  );
}

function checkbox(s: Submission, select: { selected: Set<string>; onChange: () => void }): HTMLInputElement {
  const box = h("input", {
    type: "checkbox",
    "aria-label": `Select ${s.submissionId}`,
    checked: select.selected.has(s.submissionId),
  });
  box.addEventListener("change", () => {
    if (box.checked) select.selected.add(s.submissionId);
    else select.selected.delete(s.submissionId);
    select.onChange();
  });
  return box;
}

/** datetime-local ⇄ ISO (the owner API filters by ISO timestamps). */
export function toIso(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
export function toLocal(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Who a lead is about (D-318): the name, the e-mail and phone as the API masks them. */
function personCell(s: Submission) {
  if (!s.person) return "—";
  const contact = [s.person.email, s.person.phone].filter(Boolean).join(" · ");
  return [s.person.name ?? "", contact ? h("div", { class: "muted" }, contact) : null];
}

/** The log's query as the API takes it, from the strings of the URL or a form: an unknown status or kind is dropped. */
export type LogQuery = NonNullable<OwnerRequest<"get", "/submissions">["query"]>;

export const STATUSES: readonly Submission["status"][] = [
  "queued",
  "waiting",
  "forwarding",
  "forwarded",
  "failed",
  "held",
  "fetching",
  "noted",
];
const KINDS: readonly Submission["kind"][] = ["lead", "appointment"];
const oneOf = <T extends string>(value: string | null | undefined, options: readonly T[]) =>
  options.find((option) => option === value);
const text = (value: string | null | undefined) => value || undefined;

export function logQuery(fields: Partial<Record<keyof LogQuery, string | null>>): LogQuery {
  return {
    status: oneOf(fields.status, STATUSES),
    keyId: text(fields.keyId),
    connectionId: text(fields.connectionId),
    kind: oneOf(fields.kind, KINDS),
    from: text(fields.from),
    to: text(fields.to),
    email: text(fields.email),
    phone: text(fields.phone),
    extras: text(fields.extras),
    cursor: text(fields.cursor),
  };
}
