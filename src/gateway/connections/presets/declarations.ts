/**
 * preset.json's "proof", "handshake" and "answer": the proofs module's own declaration schemas
 * (src/gateway/connections/proofs/), so a preset is checked by the rules its requests are verified with.
 */
export {
  answerDeclarationSchema as answerDeclaration,
  handshakeDeclarationSchema as handshakeDeclaration,
  proofDeclarationSchema as proofDeclaration,
} from "../proofs/index.js";
