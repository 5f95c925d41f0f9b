import { badRequest } from "../../../http/errors.js";

/** §8: up to 128 characters from A-Z a-z 0-9 . _ : - */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** How long a key's record is kept (§8 "stored durably"; docs/decisions.md): a day, longer than any sane retry. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** §4: Installer API writes with POST or PUT require the header; a missing or malformed one is 400 naming it. */
export function idempotencyKeyOf(header: string | undefined): string {
  if (header === undefined || header === "") {
    throw badRequest("Idempotency-Key: required on Installer API writes", { field: "Idempotency-Key" });
  }
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw badRequest("Idempotency-Key: must be 1 to 128 characters from A-Z a-z 0-9 . _ : -", {
      field: "Idempotency-Key",
    });
  }
  return header;
}
