import { newId } from "../../ids.js";

/**
 * The smallest id a row created at `atMs` or later can have: ids are time-ordered (src/ids.ts), so "created since"
 * is a range on the primary key (or on `(company_id, id)`), not a scan of `created_at`.
 */
export function idFloor(prefix: string, atMs: number): string {
  return newId(prefix, atMs).slice(0, prefix.length + 11);
}
