import { parseApiKey, secretMatches } from "../../contract/api-key.js";
import { unauthorized } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";

export type VendorKey = VendorKeyRow;

/**
 * §5.1–5.3 applied to the gateway's own vendor keys: missing, malformed, unknown, revoked or wrong-environment keys
 * are all 401 with the same message, so the answer does not reveal which keys exist. During a rotation the previous
 * secret is accepted until its overlap ends.
 */
export function authenticateVendorKey(ctx: GatewayContext, header: string | undefined): VendorKey | Promise<VendorKey> {
  const parsed = parseApiKey(header);
  const expected = ctx.settings.mode === "live" ? "live" : "test";
  if (!parsed || parsed.environment !== expected) throw unauthorized();
  // Every intake request: cached until the table changes (VendorKeyStore.find); a hit is here without an await.
  const found = ctx.vendorKeys.find(parsed.keyId);
  if (found instanceof Promise) return found.then((key) => verified(ctx, parsed.secret, key));
  return verified(ctx, parsed.secret, found);
}

function verified(ctx: GatewayContext, secret: string, key: VendorKey | undefined): VendorKey {
  if (!key || key.revokedAt) throw unauthorized();
  if (secretMatches(secret, key.secretDigest)) return key;
  const overlap = key.previousValidUntil ? Date.parse(key.previousValidUntil) > ctx.now().getTime() : false;
  if (overlap && key.previousSecretDigest && secretMatches(secret, key.previousSecretDigest)) return key;
  throw unauthorized();
}
