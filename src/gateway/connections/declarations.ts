import { z } from "zod";
import type { HookBodyType } from "./bodies/index.js";
import type { LoadedPreset } from "./presets/index.js";
import { type FetchDeclaration, fetchSchema, PRESET_BODY_TYPES } from "./presets/index.js";
import {
  type AnswerDeclaration,
  answerDeclarationSchema,
  type HandshakeDeclaration,
  handshakeDeclarationSchema,
  type ProofDeclaration,
  proofDeclarationSchema,
} from "./proofs/index.js";

/**
 * What a connection declares about its vendor (DESIGN.md, "Vendors as they really send"): the body type it parses,
 * the proof it checks, the handshake it answers, the answer it gives, the fetch of a notified record, and the JSONata
 * that marks a vendor's test request. A preset's, or the connection's own (`settings`).
 */
export interface HookDeclarations {
  bodyType: HookBodyType;
  proof: ProofDeclaration;
  handshake?: HandshakeDeclaration | undefined;
  answer: AnswerDeclaration;
  fetch?: FetchDeclaration | undefined;
  test?: string | undefined;
}

/** A connection without a preset: its declarations, checked by the same schemas as a preset's. */
export const connectionSettingsSchema = z.strictObject({
  bodyType: z.enum(PRESET_BODY_TYPES),
  proof: proofDeclarationSchema,
  handshake: handshakeDeclarationSchema.optional(),
  answer: answerDeclarationSchema.default({ status: 200, contentType: "text/plain" }),
  fetch: fetchSchema.optional(),
  test: z.string().min(1).max(10_000).optional(),
});

export function presetDeclarations(preset: LoadedPreset): HookDeclarations {
  const { bodyType, proof, handshake, answer, fetch, test } = preset.preset;
  return { bodyType, proof, handshake, answer, fetch, test };
}

/** The declarations of a connection's stored settings (checked when they were saved). */
export function settingsDeclarations(settings: unknown): HookDeclarations {
  return connectionSettingsSchema.parse(settings);
}
