/** RFC 7240 `Prefer: wait=N` is honoured up to 30 s; a sync-mode key waits 10 s unless the client asks otherwise. */
export const MAX_WAIT_SECONDS = 30;
export const SYNC_MODE_WAIT_SECONDS = 10;

export function waitSeconds(prefer: string | undefined, responseMode: "async" | "sync"): number {
  const byMode = responseMode === "sync" ? SYNC_MODE_WAIT_SECONDS : 0;
  if (prefer === undefined) return byMode;
  const preferences = prefer
    .split(",")
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
  if (preferences.includes("respond-async")) return 0;
  for (const preference of preferences) {
    const match = /^wait\s*=\s*(\d+)$/.exec(preference);
    if (match) return Math.min(MAX_WAIT_SECONDS, Number(match[1]));
  }
  return byMode;
}
