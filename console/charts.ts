import { h, svg } from "./dom.js";

export interface Series {
  name: string;
  /** CSS class giving the line its colour and dash (never colour alone: the legend names it, dashes differ). */
  className: string;
  values: (number | null)[];
}

const W = 640;
const H = 200;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

/** A line chart as inline SVG: the axes, one polyline per series, a legend, and a text summary for screen readers. */
export function lineChart(options: {
  title: string;
  labels: string[];
  series: Series[];
  unit?: string;
  summary: string;
}): HTMLElement {
  const all = options.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = Math.max(1, ...all);
  const n = Math.max(1, options.labels.length - 1);
  const x = (i: number) => PAD.left + (i / n) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const grid = [0, 0.5, 1].map((f) =>
    svg(
      "g",
      null,
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(max * f), y2: y(max * f), class: "grid" }),
      svg("text", { x: PAD.left - 6, y: y(max * f) + 4, "text-anchor": "end", class: "tick" }, fmt(max * f)),
    ),
  );
  const anchors = ["start", "middle", "end"];
  const ticks = [0, Math.floor(n / 2), n].map((i, k) =>
    svg("text", { x: x(i), y: H - 8, "text-anchor": anchors[k], class: "tick" }, options.labels[i] ?? ""),
  );
  const lines = options.series.map((s) => {
    const segments: string[] = [];
    s.values.forEach((v, i) => {
      if (v !== null) segments.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    });
    // A lone point draws no line: mark every value that is not zero, so one busy hour still shows.
    const dots = s.values.map((v, i) =>
      v ? svg("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3, class: `dot ${s.className}` }) : null,
    );
    return svg(
      "g",
      null,
      svg("polyline", { points: segments.join(" "), class: `line ${s.className}`, fill: "none" }),
      dots,
    );
  });
  return h(
    "figure",
    { class: "chart" },
    h("figcaption", null, options.title, options.unit ? h("span", { class: "muted" }, ` (${options.unit})`) : null),
    svg(
      "svg",
      { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${options.title}: ${options.summary}` },
      ...grid,
      ...ticks,
      ...lines,
    ),
    h(
      "ul",
      { class: "legend" },
      options.series.map((s) =>
        h("li", null, h("span", { class: `swatch ${s.className}`, "aria-hidden": "true" }), s.name),
      ),
    ),
  );
}

/** One labelled bar: how much of a limit is used, and the headroom left. */
export function meter(label: string, used: number, limit: number, detail: string): HTMLElement {
  const share = limit > 0 ? Math.min(1, used / limit) : 0;
  const level = share >= 0.9 ? "hot" : share >= 0.6 ? "warm" : "cool";
  return h(
    "div",
    { class: "meter" },
    h("div", { class: "meter-label" }, h("span", null, label), h("span", null, `${used} / ${limit}`)),
    svg(
      "svg",
      {
        viewBox: "0 0 100 8",
        preserveAspectRatio: "none",
        role: "img",
        "aria-label": `${label}: ${used} of ${limit} used, ${Math.round((1 - share) * 100)}% headroom`,
      },
      svg("rect", { x: 0, y: 0, width: 100, height: 8, class: "meter-track" }),
      svg("rect", { x: 0, y: 0, width: (share * 100).toFixed(2), height: 8, class: `meter-fill ${level}` }),
    ),
    h("small", { class: "muted" }, detail),
  );
}

function fmt(v: number): string {
  return v >= 1000 ? `${(v / 1000).toFixed(1)}k` : Number.isInteger(v) ? String(v) : v.toFixed(1);
}
