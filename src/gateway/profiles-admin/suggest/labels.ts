import { ID_WORDS, KEY_WORDS, labelOf } from "./list-words.js";
import { tokenize } from "./tokens.js";

/**
 * Labels found elsewhere in the payload for an answer that carries only an id: a form that sends
 * `answers: [{id: "c9", …}]` and, apart, `questions: [{id: "c9", title: "Full name"}]`. Any object with an id-like
 * field and a label field contributes; an answer list never labels itself (its own items are skipped by `list`).
 */
export class CrossLabels {
  readonly #labels = new Map<string, { words: string[]; list: string }[]>();
  static readonly #LIMIT = 20_000;

  /** Notes an object met at `list` (the structural path of the list it is in, or of itself). */
  note(object: Record<string, unknown>, list: string): void {
    if (this.#labels.size >= CrossLabels.#LIMIT) return;
    const labelField = labelOf(object);
    if (labelField === undefined) return;
    const label = object[labelField] as string;
    for (const [field, value] of Object.entries(object)) {
      if (field === labelField || (typeof value !== "string" && typeof value !== "number")) continue;
      const words = tokenize(field);
      if (!words.some((word) => ID_WORDS.has(word) || KEY_WORDS.has(word))) continue;
      const id = String(value);
      if (id === label || id.length > 200) continue;
      const known = this.#labels.get(id) ?? [];
      if (known.length < 4) known.push({ words: tokenize(label), list });
      this.#labels.set(id, known);
    }
  }

  /** The words of the labels given to a field name that is an id of a question elsewhere (`Field1`, `input_5`). */
  wordsForField(field: string, except: string): string[] {
    return field.length >= 2 ? this.wordsFor(field, except) : [];
  }

  /** The words of the labels others give an id, those from the list `except` left out. */
  wordsFor(id: string | number, except: string): string[] {
    const found = this.#labels.get(String(id));
    if (!found) return [];
    return found.filter((entry) => entry.list !== except).flatMap((entry) => entry.words);
  }
}
