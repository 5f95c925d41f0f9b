import { HelperError, tidy } from "./text.js";

const DAY_MS = 86_400_000;

/** `2026-12-01 09:30`, `2026-12-01T09:30:15.250`, `2026-12-01 9:30 pm`, `2026-12-01` (midnight). */
const LOCAL =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:\s*([ap])\.?m\.?)?$/i;
/** An instant that already says its offset needs no zone. */
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Formatters are costly to build and there are only a few hundred zones; valid ones are kept. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      throw new HelperError(`$localToUtc: unknown IANA time zone ${JSON.stringify(zone)}`);
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC at an instant, in ms (Chicago in winter: −6 h). */
function offsetAt(formatter: Intl.DateTimeFormat, utcMs: number): number {
  const wholeSecond = utcMs - (((utcMs % 1000) + 1000) % 1000);
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(wholeSecond))) parts[part.type] = Number(part.value);
  const wall = Date.UTC(
    parts.year ?? 0,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    (parts.hour ?? 0) % 24,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wall - wholeSecond;
}

/**
 * `$localToUtc("2026-12-01 09:30", "America/Chicago")` → `"2026-12-01T15:30:00.000Z"` (§8: UTC with Z). Offsets come
 * from the runtime's time-zone database through Intl, so daylight saving is right for the date given. A wall time that
 * happens twice (clocks going back) is the earlier instant; one that never happens (clocks going forward) is moved
 * forward by the gap — the "compatible" rule of Temporal and of most calendars. A time that already carries an offset
 * or Z is converted as written, whatever the zone.
 */
export function localToUtc(local: unknown, zone: unknown): string | undefined {
  const value = tidy(local);
  if (value === undefined) return undefined;
  if (value.length > 64) throw new HelperError("$localToUtc: the date-time is longer than 64 characters");
  if (WITH_OFFSET.test(value)) {
    const instant = Date.parse(value);
    if (Number.isNaN(instant)) throw new HelperError(`$localToUtc: ${JSON.stringify(value)} is not a valid date-time`);
    return new Date(instant).toISOString();
  }
  const zoneName = tidy(zone);
  if (zoneName === undefined) throw new HelperError("$localToUtc: an IANA time zone is required, e.g. America/Chicago");
  const wall = parseWallTime(value);
  const formatter = formatterFor(zoneName);

  const before = offsetAt(formatter, wall - DAY_MS);
  const after = offsetAt(formatter, wall + DAY_MS);
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => offsetAt(formatter, instant) === wall - instant);
  const instant = valid.length > 0 ? Math.min(...valid) : wall - before;
  return new Date(instant).toISOString();
}

/** The wall-clock fields as if they were UTC, validated (no 31 February, no 25:00). */
function parseWallTime(value: string): number {
  const m = LOCAL.exec(value);
  const invalid = () =>
    new HelperError(`$localToUtc: ${JSON.stringify(value)} is not a local date-time like "2026-12-01 09:30"`);
  if (!m) throw invalid();
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", meridiem] = m;
  let hour = Number(h);
  if (meridiem) {
    if (hour < 1 || hour > 12) throw invalid();
    hour = (hour % 12) + (meridiem.toLowerCase() === "p" ? 12 : 0);
  }
  const fields = [Number(y), Number(mo) - 1, Number(d), hour, Number(mi), Number(s)] as const;
  const ms = Number(fraction.padEnd(3, "0").slice(0, 3));
  const wall = Date.UTC(...fields, ms);
  const check = new Date(wall);
  const roundTrips =
    check.getUTCFullYear() === fields[0] &&
    check.getUTCMonth() === fields[1] &&
    check.getUTCDate() === fields[2] &&
    check.getUTCHours() === fields[3] &&
    check.getUTCMinutes() === fields[4] &&
    check.getUTCSeconds() === fields[5];
  if (!roundTrips) throw invalid();
  return wall;
}
