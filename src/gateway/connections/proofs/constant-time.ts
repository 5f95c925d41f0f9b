import { createHash, timingSafeEqual } from "node:crypto";

const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * A presented secret against the stored one in constant time: both are hashed first, so the comparison runs on
 * equal-length digests and says nothing about either length (STYLE.md, security).
 */
export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(sha256(presented), sha256(expected));
}

/**
 * Whether any presented digest is the expected one (D-288: several during a vendor's secret rotation). Every
 * candidate is compared in full, whatever the earlier ones gave; candidates of another length never get here (they
 * are malformed, refused before any comparison).
 */
export function anyDigestMatches(candidates: readonly Buffer[], expected: Buffer): boolean {
  let matched = false;
  for (const candidate of candidates) {
    const same = candidate.length === expected.length && timingSafeEqual(candidate, expected);
    matched = same || matched;
  }
  return matched;
}
