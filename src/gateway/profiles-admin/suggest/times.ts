import { type Candidate, rank, weakest } from "./candidates.js";
import { nameScore } from "./concepts.js";
import { isBlank, type Leaf } from "./leaves.js";
import { nearest, type Reading } from "./reading.js";
import type { Shape } from "./shapes.js";
import { type Mapped, type Missed, shown } from "./writer.js";

/**
 * §2.8 startsAt and endsAt, UTC: read as the vendor writes them — an instant with its offset (converted as written),
 * epoch seconds or milliseconds, a local date-time with an IANA zone the payload names, or a date and a time of day
 * apart with that zone; the end also as the start plus a length in minutes. A time the payload gives without any zone
 * is left out: guessing the zone would put the visit hours off (docs/decisions.md, D-313). Names decide which time is
 * the visit's: a creation, update or sending time never is (concepts.ts).
 */
export interface Times {
  startsAt: { mapped: Mapped } | { missed: Missed };
  endsAt: { mapped: Mapped } | { missed: Missed };
}

interface Style {
  /** JSONata for the instant, given how to write a leaf's path. */
  text: string;
  sources: Candidate[];
  /** Zoned and epoch times stand alone; local ones lean on a zone; a date and a time on both. */
  rank: number;
  describe: string;
}

const INSTANT: readonly { shape: Shape; rank: number; write: (p: string) => string; describe: string }[] = [
  {
    shape: "zonedDateTime",
    rank: 4,
    write: (p) => `$localToUtc(${p}, "UTC")`,
    describe: "a time with its offset, converted as written",
  },
  { shape: "epochMillis", rank: 3, write: (p) => `$fromMillis($number(${p}))`, describe: "epoch milliseconds" },
  { shape: "epochSeconds", rank: 3, write: (p) => `$fromMillis($number(${p}) * 1000)`, describe: "epoch seconds" },
];

export function pickTimes(r: Reading): Times {
  const start = bestStyle(r, "start", "time");
  if (!start) {
    const local = localWithoutZone(r);
    const note = local
      ? `\`${shown(local)}\` is a local time and nothing in the payloads names its zone: set it, e.g. $localToUtc(${r.writer.path(local)}, "America/Chicago")`
      : "no field holds the visit's start (a creation or update time is not one)";
    return {
      startsAt: { missed: { field: "startsAt", note } },
      endsAt: { missed: { field: "endsAt", note: "no start, so no end" } },
    };
  }
  const startsAt: Mapped = {
    field: "startsAt",
    text: start.text,
    sources: start.sources.map((c) => c.leaf),
    confidence: weakest(...start.sources.map((c) => c.confidence)),
    reason: `${start.sources[0]?.reason ?? ""} Read as ${start.describe}.`,
  };
  const end = bestStyle(r, "end", "endTime", start);
  if (end) {
    return {
      startsAt: { mapped: startsAt },
      endsAt: {
        mapped: {
          field: "endsAt",
          text: end.text,
          sources: end.sources.map((c) => c.leaf),
          confidence: weakest(...end.sources.map((c) => c.confidence)),
          reason: `${end.sources[0]?.reason ?? ""} Read as ${end.describe}.`,
        },
      },
    };
  }
  const duration = durationLeaf(r);
  if (duration) {
    const { leaf, unit } = duration;
    const factor = unit === "seconds" ? 1000 : unit === "hours" ? 3_600_000 : 60_000;
    return {
      startsAt: { mapped: startsAt },
      endsAt: {
        mapped: {
          field: "endsAt",
          text: `$fromMillis($toMillis($startsAt) + $number(${r.writer.path(leaf)}) * ${factor})`,
          sources: [leaf],
          confidence: "likely",
          reason: `no end time; the start plus \`${shown(leaf)}\`, a length in ${unit}.`,
        },
      },
    };
  }
  return {
    startsAt: { mapped: startsAt },
    endsAt: { missed: { field: "endsAt", note: "no end time and no length of the visit" } },
  };
}

function bestStyle(
  r: Reading,
  instant: "start" | "end",
  dayTime: "time" | "endTime",
  start?: Style,
): Style | undefined {
  const styles: Style[] = [];
  for (const kind of INSTANT) {
    const found = rank(r.candidates, { concept: instant, shapes: [kind.shape], varying: true }, r.payloads)[0];
    if (found)
      styles.push({
        text: kind.write(r.writer.path(found.leaf)),
        sources: [found],
        rank: kind.rank,
        describe: kind.describe,
      });
  }
  const local = rank(r.candidates, { concept: instant, shapes: ["localDateTime"], varying: true }, r.payloads)[0];
  const zone = local ? zoneNear(r, local.leaf) : undefined;
  if (local && zone) {
    styles.push({
      text: `$localToUtc(${r.writer.path(local.leaf)}, ${r.writer.path(zone.leaf)})`,
      sources: [local, zone],
      rank: 2,
      describe: `a local time in the zone of \`${shown(zone.leaf)}\``,
    });
  }
  const time = rank(r.candidates, { concept: dayTime, shapes: ["time"] }, r.payloads)[0];
  const date = time ? dateFor(r, time.leaf, start) : undefined;
  const dayZone = time ? zoneNear(r, time.leaf) : undefined;
  if (time && date && dayZone) {
    const d = r.writer.path(date.leaf);
    const t = r.writer.path(time.leaf);
    styles.push({
      text: `${d} and ${t} ? $localToUtc(${d} & " " & ${t}, ${r.writer.path(dayZone.leaf)}) : ()`,
      sources: [time, date, dayZone],
      rank: 1,
      describe: `the date \`${shown(date.leaf)}\` at the time \`${shown(time.leaf)}\` in the zone of \`${shown(dayZone.leaf)}\``,
    });
  }
  // The best name first; between equal names, the form that needs the least from elsewhere.
  styles.sort((a, b) => (b.sources[0]?.name ?? 0) - (a.sources[0]?.name ?? 0) || b.rank - a.rank);
  return styles[0];
}

/** The date of a time of day: the visit's date field, or for an end time the start's own date. */
function dateFor(r: Reading, time: Leaf, start: Style | undefined): Candidate | undefined {
  const startDate = start?.sources.find((c) => (c.leaf.shapes.get("date") ?? 0) > 0);
  if (startDate) return startDate;
  return nearest(rank(r.candidates, { concept: "date", shapes: ["date"], varying: true }, r.payloads), time);
}

/** The IANA zone for a local time: a zone field nearest to it (a zone known by its value alone will do). */
function zoneNear(r: Reading, leaf: Leaf): Candidate | undefined {
  return nearest(rank(r.candidates, { concept: "zone", shapes: ["zone"], byValue: true }, r.payloads), leaf);
}

/** A local start with no zone anywhere: named in the missing field's note, never converted. */
function localWithoutZone(r: Reading): Leaf | undefined {
  return rank(r.candidates, { concept: "start", shapes: ["localDateTime", "date", "time"] }, r.payloads)[0]?.leaf;
}

const MAX_MINUTES = 24 * 60;

/** A length named as one, a whole number in every payload; in minutes unless its name says seconds or hours. */
function durationLeaf(r: Reading): { leaf: Leaf; unit: "minutes" | "seconds" | "hours" } | undefined {
  for (const leaf of r.leaves) {
    if (leaf.present === 0 || nameScore("duration", leaf.naming) < 3) continue;
    const numbers = leaf.values.filter((v) => !isBlank(v)).map((v) => Number(v));
    if (!numbers.every((n) => Number.isInteger(n) && n > 0)) continue;
    const words = [...leaf.naming.own, ...leaf.naming.label];
    if (words.some((w) => w === "sec" || w === "secs" || w === "seconds" || w === "s"))
      return { leaf, unit: "seconds" };
    if (words.some((w) => w === "hours" || w === "hrs" || w === "h")) return { leaf, unit: "hours" };
    if (numbers.every((n) => n <= MAX_MINUTES)) return { leaf, unit: "minutes" };
  }
  return undefined;
}
