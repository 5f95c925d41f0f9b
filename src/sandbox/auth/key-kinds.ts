import type { KeyKind, Scope } from "../db/schema/index.js";

/** §5.3–5.4: the scopes each key kind can carry (its surface's operations); a new key gets all of them by default. */
export const KIND_SCOPES: Record<KeyKind, readonly Scope[]> = {
  general: ["leads:write", "appointments:write"],
  "installer-contractor": ["jobs:read", "jobs:status:write"],
  "installer-company": [
    "jobs:read",
    "jobs:status:write",
    "jobs:schedule:write",
    "technicians:read",
    "jobs:assignment:write",
  ],
};

export function scopesFitKind(kind: KeyKind, scopes: readonly Scope[]): boolean {
  return scopes.every((scope) => KIND_SCOPES[kind].includes(scope));
}
