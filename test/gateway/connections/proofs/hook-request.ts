import { createHmac } from "node:crypto";
import {
  type HookRequest,
  type ProofDeclaration,
  type ProofDeclarationInput,
  proofDeclarationSchema,
} from "../../../../src/gateway/connections/proofs/index.js";

/** A vendor's POST as the hook route would hand it over; every field can be replaced. */
export function hookRequest(fields: Partial<HookRequest> = {}): HookRequest {
  return {
    method: "POST",
    url: "https://gateway.example.com/hooks/tok_abc",
    headers: {},
    query: {},
    rawBody: Buffer.from("{}"),
    ...fields,
  };
}

/** A declaration as a preset writes it, parsed as the loader parses it (defaults filled in). */
export function declare(input: ProofDeclarationInput): ProofDeclaration {
  return proofDeclarationSchema.parse(input);
}

export const secretsOf = (entries: Record<string, string>): ReadonlyMap<string, string> =>
  new Map(Object.entries(entries));

/** Computed with Node's crypto, for schemes whose vendor documents no worked example. */
export function hmac(algorithm: "sha256" | "sha1", secret: string, ...parts: Array<string | Buffer>): Buffer {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** The same buffer with the byte at `index` changed. */
export function withByteChanged(bytes: Buffer, index: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}
