import { describe, expect, it } from "vitest";
import { addScore, emptyScore, loadCorpus, SUBSETS, scoreFormat } from "../../../../bench/lib/suggest-corpus.js";

/**
 * The corpus's targets (docs/profiles.md, "Suggested profiles"; npm run bench:suggest prints the figures): on each
 * subset, at least 90 % of the expected values produced exactly, at most 3 % produced differently, none produced where
 * the payload carries nothing.
 */
describe("suggested profiles on the corpus (test/fixtures/suggest-corpus)", () => {
  it("has at least 14 formats to tune on and a held-out subset, every payload with its expectation", () => {
    const formats = loadCorpus();
    expect(formats.filter((f) => f.subset === "tuning").length).toBeGreaterThanOrEqual(14);
    expect(formats.filter((f) => f.subset === "held-out").length).toBeGreaterThanOrEqual(5);
    for (const format of formats) expect(format.expected, format.name).toHaveLength(format.payloads.length);
  });

  it.each(SUBSETS)("meets the targets on the %s subset", async (subset) => {
    const total = emptyScore();
    for (const format of loadCorpus([subset])) addScore(total, (await scoreFormat(format)).score);
    expect(total.fields).toBeGreaterThan(100);
    expect(total.correct).toBeGreaterThanOrEqual(0.9 * total.fields);
    expect(total.wrong).toBeLessThanOrEqual(0.03 * total.fields);
    expect(total.invented).toBe(0);
  });
});
