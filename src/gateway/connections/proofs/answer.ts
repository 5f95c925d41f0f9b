import { z } from "zod";
import { readTreePath } from "./tree-path.js";

/**
 * What the vendor gets once its request is authenticated and durably stored (preset.json "answer"): a status, a
 * content type and a body template whose `{{dotted.path}}` placeholders are read from the parsed payload.
 */
export const answerDeclarationSchema = z
  .object({
    status: z.number().int().min(200).max(299).default(200),
    contentType: z.enum(["text/plain", "application/json", "application/xml"]).default("text/plain"),
    body: z.string().max(10_000).optional(),
  })
  .strict();

export type AnswerDeclaration = z.output<typeof answerDeclarationSchema>;

export interface RenderedAnswer {
  status: number;
  contentType: AnswerDeclaration["contentType"];
  body: string;
}

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** XML 1.0 §2.2: the characters a document may hold; anything else is dropped rather than written. */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const XML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** A value as text: scalars as they are, a missing path or null as nothing, an object or array as its JSON. */
function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

const escapeFor: Record<AnswerDeclaration["contentType"], (value: string) => string> = {
  // Inside a JSON string literal: the template writes the quotes, the value cannot close them.
  "application/json": (value) => JSON.stringify(value).slice(1, -1),
  "application/xml": (value) => value.replace(NOT_XML_CHAR, "").replace(/[&<>"']/g, (c) => XML_ENTITIES[c] ?? ""),
  "text/plain": (value) => value,
};

/**
 * The answer's body with every placeholder filled from the payload, escaped for the content type. Substitution only:
 * no expression is evaluated and a filled value is never read again as a template.
 */
export function renderAnswer(answer: AnswerDeclaration, payload: unknown): RenderedAnswer {
  const escapeValue = escapeFor[answer.contentType];
  const body = (answer.body ?? "").replace(PLACEHOLDER, (_, path: string) =>
    escapeValue(text(readTreePath(payload, path))),
  );
  return { status: answer.status, contentType: answer.contentType, body };
}
