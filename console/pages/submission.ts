import { api, failureText } from "../api.js";
import { badge, h, json, mount, notice, time } from "../dom.js";
import { link } from "../router.js";
import { isAdmin } from "../session.js";

/**
 * One submission: what arrived, what it became, every attempt, what the platform answered; a hook connection's, where
 * it came from and why it is held or noted (a held one re-mapped from here, D-308).
 */
export async function submissionPage(view: HTMLElement, params: Record<string, string>): Promise<void> {
  const id = params.submissionId ?? "";
  const s = await api.get("/submissions/{submissionId}", { params: { submissionId: id } });
  const status = h("div", { "aria-live": "polite" });
  // Held and noted submissions stay so until the owner acts: nothing to follow.
  const settled = ["forwarded", "failed", "held", "noted"].includes(s.status);
  mount(
    view,
    h("p", { class: "crumbs" }, link("/submissions", "Submissions"), " / ", s.submissionId),
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Submission ", h("span", { class: "mono" }, s.submissionId)),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", onclick: () => void submissionPage(view, params) }, "Refresh"),
        isAdmin() && s.status === "failed"
          ? h(
              "button",
              {
                type: "button",
                class: "primary",
                onclick: async () => {
                  try {
                    await api.post("/dead-letter/redrive", { body: { submissionIds: [s.submissionId] } });
                    await submissionPage(view, params);
                  } catch (error) {
                    mount(status, notice("error", failureText(error)));
                  }
                },
              },
              "Redrive",
            )
          : null,
        isAdmin() && s.status === "held"
          ? h(
              "button",
              {
                type: "button",
                class: "primary",
                onclick: async () => {
                  try {
                    const done = await api.post("/dead-letter/redrive", {
                      body: { status: "held", submissionIds: [s.submissionId] },
                    });
                    await submissionPage(view, params);
                    const [skipped] = done.skipped;
                    if (skipped) mount(status, notice("error", skipped.reason));
                  } catch (error) {
                    mount(status, notice("error", failureText(error)));
                  }
                },
              },
              "Re-map",
            )
          : null,
      ),
    ),
    status,
    h(
      "dl",
      { class: "facts card" },
      fact("Status", [badge(s.status), s.waitingReason ? ` ${s.waitingReason}` : ""]),
      fact("Kind", s.kind),
      fact("Accepted", time(s.createdAt)),
      fact("Updated", time(s.updatedAt)),
      fact("Key", s.vendorKeyId),
      s.connectionId ? fact("Connection", link(`/connections`, s.connectionId)) : null,
      s.vendorRecordId ? fact("Vendor's record id", s.vendorRecordId) : null,
      s.recordAction ? fact("Vendor's change", s.recordAction) : null,
      s.test ? fact("Test", "a vendor's test record: never forwarded to a live platform") : null,
      s.heldReason ? fact("Held because", h("span", { class: "error-text" }, s.heldReason)) : null,
      s.note ? fact("Note", s.note) : null,
      fact("Profile version", s.profileVersionId ?? "none (canonical)"),
      fact("Attempts", String(s.attempts)),
      fact("Upstream status", s.upstreamStatus === null ? "—" : String(s.upstreamStatus)),
      fact("Idempotency key", s.idempotencyKey ?? "—"),
      s.lastError ? fact("Last error", h("span", { class: "error-text" }, s.lastError)) : null,
    ),
    !settled ? h("p", { class: "muted", role: "status" }, "Not settled yet: refresh to follow it.") : null,
    h(
      "div",
      { class: "grid-2" },
      h(
        "section",
        { class: "card" },
        h("h2", null, "Raw payload"),
        s.purgedAt
          ? h("p", { class: "muted" }, `Purged ${time(s.purgedAt)}.`)
          : h("pre", { class: "code" }, json(s.rawPayload)),
      ),
      h(
        "section",
        { class: "card" },
        h("h2", null, "Canonical body"),
        h("pre", { class: "code" }, json(s.canonicalBody)),
      ),
    ),
    h(
      "section",
      { class: "card" },
      h("h2", null, "Attempts"),
      s.attemptsTimeline.length
        ? h(
            "ol",
            { class: "timeline" },
            s.attemptsTimeline.map((a) =>
              h(
                "li",
                null,
                h("strong", null, a.status === null ? "no answer" : `HTTP ${a.status}`),
                ` · ${time(a.startedAt)} · ${a.latencyMs} ms`,
                a.counted ? "" : " · not counted (429)",
                a.error ? h("div", { class: "error-text" }, a.error) : null,
                a.upstreamRequestId ? h("div", { class: "muted" }, `upstream request ${a.upstreamRequestId}`) : null,
              ),
            ),
          )
        : h("p", { class: "muted" }, "Not sent yet."),
    ),
    h("section", { class: "card" }, h("h2", null, "Upstream result"), h("pre", { class: "code" }, json(s.result))),
  );
}

function fact(term: string, value: Node | string | (Node | string)[]): HTMLElement {
  return h("div", null, h("dt", null, term), h("dd", null, value));
}
