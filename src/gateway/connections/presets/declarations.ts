import { z } from "zod";

/**
 * preset.json's "proof", "handshake" and "answer" as this module checks them: objects, the first two with a string
 * `type`. Their full rules (each proof scheme's fields, the handshakes, the answer's template) are the proofs
 * module's (src/gateway/connections/proofs/: its declaration schemas), which checks them when it takes a preset's
 * declarations; here they are only kept as written.
 */
const typed = z.looseObject({ type: z.string().min(1).max(40) });

export const proofDeclaration = typed;
export const handshakeDeclaration = typed;
export const answerDeclaration = z.looseObject({});
