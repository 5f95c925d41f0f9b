import type { SandboxTx } from "../../db/client.js";

/** The answer of a write under an Idempotency-Key, stored in the write's own transaction (answer-write.ts). */
export interface IdempotentRequest {
  commit(tx: SandboxTx, status: number, body: string): void;
}
