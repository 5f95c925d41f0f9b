export { type AnswerDeclaration, answerDeclarationSchema, type RenderedAnswer, renderAnswer } from "./answer.js";
export {
  type ProofDeclaration,
  type ProofDeclarationInput,
  proofDeclarationSchema,
  secretsNamedBy,
} from "./declaration.js";
export { answerHandshake, type HandshakeOutcome, type HandshakeRefusalCode } from "./handshake.js";
export { type HandshakeDeclaration, handshakeDeclarationSchema } from "./handshake-declaration.js";
export {
  PROOF_REFUSAL_CODES,
  PROOF_REFUSAL_STATUS,
  type ProofRefusalCode,
  type ProofRefused,
  type ProofResult,
} from "./refusal.js";
export type { HeaderSource, HookRequest, QuerySource } from "./request.js";
export { proofNeedsParsedBody, verifyProof } from "./verify-proof.js";
