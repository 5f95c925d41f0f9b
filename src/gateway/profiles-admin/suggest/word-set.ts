/** A set of words written as one text: lists of synonyms read better as prose than as one string per line. */
export function wordSet(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter((word) => word !== ""));
}
