import { tidy } from "./text.js";

/**
 * `$joinAddress(street, city, state, zip)` → `"12 Oak St, Austin, TX 78701"`: §2.7 wants the full service address as
 * one string (it is the de-duplication key), vendors send it in parts. `street` may be a list of lines; blank parts
 * are skipped; undefined when everything is blank.
 */
export function joinAddress(street: unknown, city?: unknown, state?: unknown, zip?: unknown): string | undefined {
  const lines = (Array.isArray(street) ? street : [street]).map(tidy).filter((l): l is string => l !== undefined);
  const region = [tidy(state), tidy(zip)].filter((p): p is string => p !== undefined).join(" ");
  const pieces = [...lines, tidy(city), region].filter((p): p is string => p !== undefined && p !== "");
  return pieces.length > 0 ? pieces.join(", ") : undefined;
}
