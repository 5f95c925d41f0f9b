import { DEFAULT_OVERLAP_SECONDS, SecretRing } from "../../../contract/secret-ring.js";
import { unixSeconds } from "../../../contract/signing.js";
import { badRequest, conflict } from "../../../http/errors.js";
import type { GatewayContext } from "../../context.js";
import { openRing, publicRing, sealRing } from "../secrets.js";

/** The record the sealed ring is bound to. */
export function platformRingId(companyId: string): string {
  return `platform-webhook-secrets:${companyId}`;
}

/** The path the platform's subscription for this company must point at (relative to the gateway's base URL). */
export function receiverPath(companyId: string): string {
  return `/webhooks/platform/${companyId}`;
}

async function readRing(ctx: GatewayContext, companyId: string): Promise<SecretRing | undefined> {
  const sealed = await ctx.webhooks.platformEvents.sealedSecrets(companyId);
  return sealed === undefined ? undefined : openRing(ctx, sealed, platformRingId(companyId));
}

async function writeRing(ctx: GatewayContext, companyId: string, ring: SecretRing): Promise<void> {
  const now = ctx.now().toISOString();
  const sealedSecrets = sealRing(ctx, ring, platformRingId(companyId));
  await ctx.webhooks.platformEvents.saveSealedSecrets(companyId, sealedSecrets, now);
}

/** The receiver's state for the owner: where the platform must deliver, and the secret versions held. */
export async function getPlatformReceiver({ ctx, companyId }: { ctx: GatewayContext; companyId: string }) {
  const ring = (await readRing(ctx, companyId))?.prune(unixSeconds(ctx.now().getTime()));
  return { path: receiverPath(companyId), configured: ring !== undefined, secrets: ring ? publicRing(ring) : null };
}

/**
 * §6.5.2: the owner loads a secret the platform showed once (§4.3), keyed by its version. The first one loaded is
 * current; a later one is pending and verifies at once (the platform may sign with it as soon as it is activated
 * there). Loading the current version again replaces it (a mistyped secret); a version below it is refused.
 */
export async function loadPlatformSecret({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { version: number; secret: string };
}) {
  const existing = await readRing(ctx, companyId);
  const current = existing?.currentVersion;
  if (current !== undefined && input.version < current) {
    throw conflict(`version ${input.version} is below the current version ${current}`, { field: "version" });
  }
  const nowSeconds = unixSeconds(ctx.now().getTime());
  const ring = existing
    ? existing.withSecret({ version: input.version, secret: input.secret }).prune(nowSeconds)
    : SecretRing.of([{ version: input.version, secret: input.secret }], input.version);
  await writeRing(ctx, companyId, ring);
  return await getPlatformReceiver({ ctx, companyId });
}

/**
 * §6.5.3: once the platform signs with the pending version, the owner activates it here: older versions keep
 * verifying for the overlap (one hour unless told), then are dropped.
 */
export async function activatePlatformSecret({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { version: number; overlapSeconds?: number | undefined };
}) {
  const ring = await readRing(ctx, companyId);
  if (!ring) throw badRequest("no platform secret is loaded yet", { field: "version" });
  if (
    ring.pendingVersion === undefined ||
    !ring.versions.includes(input.version) ||
    input.version !== ring.pendingVersion
  ) {
    throw conflict(`version ${input.version} is not the pending version`, { field: "version" });
  }
  const nowSeconds = unixSeconds(ctx.now().getTime());
  await writeRing(
    ctx,
    companyId,
    ring.activate(input.version, nowSeconds, input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS),
  );
  return await getPlatformReceiver({ ctx, companyId });
}
