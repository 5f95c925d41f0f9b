import { z } from "@hono/zod-openapi";

/** Shapes every part of the owner API uses: ids, instants, bounded strings (docs/decisions.md, "Bounded input"). */

/** A record id of this gateway (`pv_…`, `key_…`): far shorter than this. */
export const id = z.string().min(1).max(100);

/** RFC 5321: a path is at most 256 octets, an address in it at most 254. */
export const email = z.string().min(3).max(254);

/** An ISO 8601 instant; its fraction of a second may have any number of digits, so it too has a maximum. */
export const instant = z.iso.datetime().max(40);

/** An instant as the gateway writes it (`Date#toISOString`). */
export const timestamp = z.iso.datetime();

export const json = z.unknown();
