import { createHash } from "node:crypto";

/**
 * §8: idempotency keys are scoped to the key owner, and all of a company's vendors reach the platform through the
 * company: the upstream key of a submission is derived from its vendor key and the vendor's own key, so two vendors
 * may both use `abc12345` (47 characters, inside §2.8's 8–160). A redrive whose body changed bumps the generation.
 */
export function upstreamKey(vendorKeyId: string, idempotencyKey: string, generation = 0): string {
  const digest = createHash("sha256").update(`${vendorKeyId}\u0000${idempotencyKey}`).digest("base64url");
  return generation === 0 ? `pg.${digest}` : `pg.${digest}.${generation}`;
}
