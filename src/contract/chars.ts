import { z } from "@hono/zod-openapi";

/**
 * The spec's length limits count characters (code points). A string's UTF-16 length is at least its number of code
 * points and at most twice it, so most strings are judged on `length` alone; only one near a limit is counted
 * (spreading every field into code points, twice, was most of a lead's validation).
 */
export function atLeastChars(s: string, min: number): boolean {
  if (s.length >= 2 * min) return true;
  if (s.length < min) return false;
  return codePoints(s) >= min;
}

export function atMostChars(s: string, max: number): boolean {
  if (s.length <= max) return true;
  if (s.length > 2 * max) return false;
  return codePoints(s) <= max;
}

function codePoints(s: string): number {
  let count = 0;
  for (const _ of s) count++;
  return count;
}

/**
 * A string of `min` to `max` characters, with the spec's messages. The bounds are declared too (`meta`), for the JSON
 * Schema of the OpenAPI documents and the vendors' posting docs: a refinement alone is invisible to both.
 */
export const chars = (min: number, max: number) =>
  z
    .string()
    .refine((s) => atLeastChars(s, min), { message: `must be at least ${min} characters` })
    .refine((s) => atMostChars(s, max), { message: `must be at most ${max} characters` })
    .meta({ minLength: min, maxLength: max });
