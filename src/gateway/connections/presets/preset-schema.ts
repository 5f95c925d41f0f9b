import { z } from "zod";
import { answerDeclaration, handshakeDeclaration, proofDeclaration } from "./declarations.js";
import { fetchSchema, fetchSecretNames } from "./fetch-schema.js";
import { docLink, jsonataText, secretName } from "./names.js";

/**
 * `presets/<id>/preset.json` (hooks contract, "Preset data"; docs/decisions.md D-304): everything a named vendor's
 * connection needs besides its profile, as data. Strict: a misspelt key is an error when the preset loads, not a
 * declaration silently missing.
 */

/** The four body types a hook connection parses (the bodies module's HookBodyType). */
export const PRESET_BODY_TYPES = ["json", "form", "multipart", "xml"] as const;

const presetId = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lower-case words joined by hyphens")
  .max(64);

const secret = z.strictObject({
  name: secretName,
  /** What the secret is and what the gateway does with it, for the owner who pastes it. */
  description: z.string().min(1).max(2_000),
  /** Where in the vendor's dashboard (or how) the owner finds or sets it. */
  where: z.string().min(1).max(2_000),
});

export const presetSchema = z
  .strictObject({
    id: presetId,
    vendor: z.string().min(1).max(200),
    /** A vendor's records are leads, or leads and appointments (an appointment always comes with or after its lead). */
    kinds: z.union([z.tuple([z.literal("lead")]), z.tuple([z.literal("lead"), z.literal("appointment")])], {
      message: 'must be ["lead"] or ["lead", "appointment"]',
    }),
    bodyType: z.enum(PRESET_BODY_TYPES, { message: "must be json, form, multipart or xml" }),
    proof: proofDeclaration,
    handshake: handshakeDeclaration.optional(),
    answer: answerDeclaration,
    fetch: fetchSchema.optional(),
    secrets: z.array(secret).max(20),
    /** JSONata over the payload: true marks the records of a vendor's test request as test records. */
    test: jsonataText.optional(),
    register: z.strictObject({ how: z.enum(["dashboard", "api"]), docs: z.string().min(1).max(4_000) }).optional(),
    docs: z.array(docLink).min(1).max(30),
  })
  .superRefine((preset, issues) => {
    const declared = new Set<string>();
    for (const [index, { name }] of preset.secrets.entries()) {
      if (declared.has(name))
        issues.addIssue({ code: "custom", path: ["secrets", index, "name"], message: `${name} is declared twice` });
      declared.add(name);
    }
    for (const { path, name } of preset.fetch ? fetchSecretNames(preset.fetch) : []) {
      if (!declared.has(name))
        issues.addIssue({ code: "custom", path, message: `names the secret ${name}, which secrets does not declare` });
    }
  });

export type Preset = z.infer<typeof presetSchema>;
