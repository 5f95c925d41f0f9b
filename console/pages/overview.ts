import { api, type OwnerAnswer } from "../api.js";
import { lineChart, meter } from "../charts.js";
import { h, mount } from "../dom.js";

type Bucket = OwnerAnswer<"get", "/insights/series">["buckets"][number];

const sum = (buckets: Bucket[], f: "accepted" | "forwarded" | "failed") => buckets.reduce((n, b) => n + b[f], 0);
const hour = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
const per = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

/** Pictures rather than tables: traffic and its outcome over 24 hours, forward latency, upstream headroom. */
export async function overviewPage(view: HTMLElement): Promise<void> {
  mount(view, h("h1", null, "Overview"), h("p", { class: "loading", role: "status" }, "Loading…"));
  const [series, headroom] = await Promise.all([
    api.get("/insights/series", { query: { hours: 24, bucketMinutes: 60 } }),
    api.get("/insights/headroom"),
  ]);
  const b = series.buckets;
  const labels = b.map((x) => hour(x.at));
  const totals = { accepted: sum(b, "accepted"), forwarded: sum(b, "forwarded"), failed: sum(b, "failed") };
  const p95 = Math.max(0, ...b.map((x) => x.latencyP95Ms ?? 0));
  mount(
    view,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Overview"),
      h("button", { type: "button", onclick: () => void overviewPage(view) }, "Refresh"),
    ),
    h(
      "section",
      { class: "stats", "aria-label": "Last 24 hours" },
      stat("Accepted", totals.accepted, "accepted"),
      stat("Forwarded", totals.forwarded, "forwarded"),
      stat("Failed", totals.failed, "failed"),
      stat("Forward latency p95", p95 ? `${Math.round(p95)} ms` : "—", "latency"),
    ),
    h(
      "div",
      { class: "grid-2" },
      h(
        "section",
        { class: "card" },
        lineChart({
          title: "Submissions per hour, last 24 h",
          labels,
          series: [
            { name: "Accepted", className: "s-accepted", values: b.map((x) => x.accepted) },
            { name: "Forwarded", className: "s-forwarded", values: b.map((x) => x.forwarded) },
            { name: "Failed", className: "s-failed", values: b.map((x) => x.failed) },
          ],
          summary: `${totals.accepted} accepted, ${totals.forwarded} forwarded, ${totals.failed} failed`,
        }),
      ),
      h(
        "section",
        { class: "card" },
        lineChart({
          title: "Forward latency (accepted → forwarded)",
          unit: "ms",
          labels,
          series: [
            { name: "p50", className: "s-p50", values: b.map((x) => x.latencyP50Ms) },
            { name: "p95", className: "s-p95", values: b.map((x) => x.latencyP95Ms) },
          ],
          summary: p95 ? `highest hourly p95 ${Math.round(p95)} ms` : "nothing forwarded yet",
        }),
      ),
    ),
    h(
      "section",
      { class: "card" },
      h("h2", null, "Upstream headroom"),
      h(
        "p",
        { class: "muted" },
        "Sends in the current window against each limit of the Inbound API (§8). Forwarding never exceeds them; a full bar means submissions wait.",
      ),
      h(
        "div",
        { class: "meters" },
        headroom.credentials.map((c) =>
          meter(`Credential ${c.name}`, c.used, c.limit, `per ${per(c.windowMs)}, this credential`),
        ),
        meter(
          "Company",
          headroom.company.used,
          headroom.company.limit,
          `per ${per(headroom.company.windowMs)}, all your credentials`,
        ),
        meter(
          "Gateway egress",
          headroom.egress.used,
          headroom.egress.limit,
          `per ${per(headroom.egress.windowMs)}, shared by every company`,
        ),
      ),
    ),
  );
}

function stat(label: string, value: number | string, className: string): HTMLElement {
  return h(
    "div",
    { class: `stat ${className}` },
    h("span", { class: "stat-value" }, String(value)),
    h("span", null, label),
  );
}
