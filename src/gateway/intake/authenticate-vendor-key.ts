import { parseApiKey, secretMatches } from "../../contract/api-key.js";
import { rowReader } from "../../db/row-reader.js";
import { vendorKeys } from "../../db/schema/index.js";
import { tableCache } from "../../db/table-cache.js";
import { unauthorized } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";

export type VendorKey = typeof vendorKeys.$inferSelect;

const lookups = new WeakMap<GatewayContext, (id: string) => VendorKey | undefined>();

/** The key lookup runs on every intake request: cached per context until the table changes (see tableCache). */
function lookup(ctx: GatewayContext) {
  let find = lookups.get(ctx);
  if (!find) {
    find = tableCache(ctx.sqlite, "vendor_keys", rowReader(ctx.sqlite, vendorKeys));
    lookups.set(ctx, find);
  }
  return find;
}

/**
 * §5.1–5.3 applied to the gateway's own vendor keys: missing, malformed, unknown, revoked or wrong-environment keys
 * are all 401 with the same message, so the answer does not reveal which keys exist. During a rotation the previous
 * secret is accepted until its overlap ends.
 */
export function authenticateVendorKey(ctx: GatewayContext, header: string | undefined): VendorKey {
  const parsed = parseApiKey(header);
  const expected = ctx.settings.mode === "live" ? "live" : "test";
  if (!parsed || parsed.environment !== expected) throw unauthorized();
  const key = lookup(ctx)(parsed.keyId);
  if (!key || key.revokedAt) throw unauthorized();
  if (secretMatches(parsed.secret, key.secretDigest)) return key;
  const overlap = key.previousValidUntil ? Date.parse(key.previousValidUntil) > ctx.now().getTime() : false;
  if (overlap && key.previousSecretDigest && secretMatches(parsed.secret, key.previousSecretDigest)) return key;
  throw unauthorized();
}
