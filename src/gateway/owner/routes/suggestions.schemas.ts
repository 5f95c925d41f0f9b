import { z } from "@hono/zod-openapi";
import { MAX_SUGGEST_PAYLOADS } from "../../profiles-admin/suggest/index.js";

/** A suggested profile from sample payloads (docs/profiles.md, "Suggested profiles"; D-230). */

export const suggestionBody = z
  .object({
    kind: z.enum(["lead", "appointment"]),
    payloads: z.array(z.unknown()).min(1).max(MAX_SUGGEST_PAYLOADS),
  })
  .openapi("ProfileSuggestionRequest");

export const suggestedField = z
  .strictObject({
    field: z.string(),
    sourcePath: z.string(),
    confidence: z.enum(["certain", "likely", "guess"]),
    reason: z.string(),
  })
  .openapi("SuggestedField");

export const suggestion = z
  .strictObject({
    expression: z.string(),
    fields: z.array(suggestedField),
    unmapped: z.array(z.string()),
    missing: z.array(z.string()),
  })
  .openapi("ProfileSuggestion");
