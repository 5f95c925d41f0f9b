import type { Sealer } from "../security/sealer.js";

/**
 * A connection's vendor secrets (an app secret, a verify token, an API token…), sealed together under the master key
 * and bound to the connection's id, as upstream credentials are (§5.9: never shown again, never logged).
 */
export function sealSecrets(sealer: Sealer, connectionId: string, secrets: Readonly<Record<string, string>>): string {
  return sealer.seal(JSON.stringify(secrets), connectionId);
}

export function openSecrets(sealer: Sealer, connectionId: string, sealed: string): ReadonlyMap<string, string> {
  const parsed = JSON.parse(sealer.open(sealed, connectionId)) as Record<string, string>;
  return new Map(Object.entries(parsed));
}
