import { wordSet } from "./word-set.js";

/**
 * The words that tell a key-value list's parts apart, whatever the vendor calls them: `[{name, values}]`,
 * `[{column_id, string_value}]`, `[{question, answer}]`, `[{label, value}]`, `[{@name, #text}]`, typed answers.
 */

/** Names of a field that names its item: `name`, `label`, `question`, `column_id`, `field.ref`, `@name`. */
export const KEY_WORDS = wordSet(`
  key name label question title field ref slug column code attribute property prompt caption header tag handle
`);

/** Names of a field that identifies its item without naming it: `qid`, `question_id`, `slot`. */
export const ID_WORDS = wordSet("id qid uid identifier slot idx");

/** Names of a field that says what kind of answer the item holds. */
export const TYPE_WORDS = wordSet("type kind");

/**
 * Names of a field that holds an item's value rather than naming it (`value`, `values`, `answer`, `string_value`,
 * `#text`). A leaf under one of these is named by its item's key, not by these words.
 */
export const VALUE_WORDS = wordSet(`
  value values val answer answers response responses string text data content result selected choice choices option
  options input reply raw
`);

/** Label fields of a question list, best first: what cross-references an answer's id to its question. */
export const LABEL_FIELDS = ["title", "label", "question", "prompt", "caption", "name", "text", "description"];

/** The field of an object that labels it (`title`, `Label`, `question`…), whatever its case; a short text. */
export function labelOf(object: Record<string, unknown>): string | undefined {
  let best: { field: string; rank: number } | undefined;
  for (const [field, value] of Object.entries(object)) {
    const rank = LABEL_FIELDS.indexOf(field.toLowerCase());
    if (rank < 0 || typeof value !== "string" || value.length > 300 || !/\p{L}/u.test(value)) continue;
    if (!best || rank < best.rank) best = { field, rank };
  }
  return best?.field;
}

/** Whether a field name (its words) is only about holding a value. */
export function isValueName(words: readonly string[]): boolean {
  return words.length > 0 && words.every((word) => VALUE_WORDS.has(word) || /^\d+$/.test(word));
}
