import { randomBytes } from "node:crypto";
import { SecretRing } from "../../contract/secret-ring.js";
import type { GatewayContext } from "../context.js";

/** A new subscription secret: 32 random bytes, base64url, with a prefix that says what it is. Shown once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** Rings are stored sealed (AES-256-GCM), bound to the row that holds them so a copy onto another row cannot open. */
export function sealRing(ctx: GatewayContext, ring: SecretRing, recordId: string): string {
  return ctx.sealer.seal(JSON.stringify(ring.toState()), recordId);
}

/** Opens a sealed ring (every delivery signs with one: the sealer keeps what it opened). */
export function openRing(ctx: GatewayContext, sealed: string, recordId: string): SecretRing {
  return SecretRing.fromState(JSON.parse(ctx.sealer.openKept(sealed, recordId)));
}

/** What the owner API shows of a ring: versions and their overlap ends, never a secret. */
export function publicRing(ring: SecretRing) {
  const state = ring.toState();
  return {
    currentVersion: ring.currentVersion ?? null,
    pendingVersion: ring.pendingVersion ?? null,
    versions: state.entries
      .map((e) => ({
        version: e.version,
        notAfter: e.notAfter === undefined ? null : new Date(e.notAfter * 1000).toISOString(),
      }))
      .sort((a, b) => a.version - b.version),
  };
}
