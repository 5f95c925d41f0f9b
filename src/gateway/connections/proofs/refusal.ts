/**
 * The outcome of checking a vendor's own proof (docs/connections.md, "Proofs and handshakes"). A refusal carries a
 * stable code for the owner's counters and a reason in words; neither ever holds a secret or a presented value.
 */
export const PROOF_REFUSAL_CODES = [
  "proof_missing",
  "proof_malformed",
  "proof_mismatch",
  "proof_stale",
  "proof_unconfigured",
] as const;

export type ProofRefusalCode = (typeof PROOF_REFUSAL_CODES)[number];

/**
 * D-286: every refusal of the vendor's request is a 401; `proof_unconfigured` (the connection lacks a secret its
 * declaration names, or the declaration cannot be used) is the gateway's fault, not the vendor's: a 503, so the vendor
 * retries once the owner has fixed it.
 */
export const PROOF_REFUSAL_STATUS: Readonly<Record<ProofRefusalCode, 401 | 503>> = {
  proof_missing: 401,
  proof_malformed: 401,
  proof_mismatch: 401,
  proof_stale: 401,
  proof_unconfigured: 503,
};

export interface ProofAccepted {
  ok: true;
}

export interface ProofRefused {
  ok: false;
  code: ProofRefusalCode;
  status: 401 | 503;
  /** For the owner: what was wrong, naming the header, parameter or field, never its value. */
  reason: string;
}

export type ProofResult = ProofAccepted | ProofRefused;

export const ACCEPTED: ProofAccepted = { ok: true };

export function refuse(code: ProofRefusalCode, reason: string): ProofRefused {
  return { ok: false, code, status: PROOF_REFUSAL_STATUS[code], reason };
}
