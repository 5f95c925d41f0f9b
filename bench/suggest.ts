/**
 * `npm run bench:suggest`: how well suggested profiles map the corpus (test/fixtures/suggest-corpus/). For every
 * format the suggester sees only the payloads; the suggested expression is then evaluated on each payload by the
 * profile engine's program and every canonical field compared with the expected value.
 *
 * One line per format, one per subset, then `RESULT formats=N fields=F correct=C wrong=W invented=I`: F the expected
 * values, C those produced exactly, W values produced that differ from the expected, I values produced where the
 * payload carries none. Targets (docs/profiles.md, "Suggested profiles"): C ≥ 0.9 F, W ≤ 0.03 F, I = 0.
 *
 *   npm run bench:suggest                          every format
 *   npm run bench:suggest -- --subset held-out     only the held-out formats (never tuned on)
 *   npm run bench:suggest -- --verbose             also each field that is not correct, and the expressions
 */
import {
  addScore,
  emptyScore,
  loadCorpus,
  type Score,
  SUBSETS,
  type Subset,
  scoreFormat,
} from "./lib/suggest-corpus.js";

const args = process.argv.slice(2);
const subsetArg = args.includes("--subset") ? args[args.indexOf("--subset") + 1] : undefined;
if (subsetArg !== undefined && !SUBSETS.includes(subsetArg as Subset)) {
  console.error(`--subset must be one of ${SUBSETS.join(", ")}`);
  process.exit(2);
}
const verbose = args.includes("--verbose");
const subsets = subsetArg ? [subsetArg as Subset] : [...SUBSETS];

const line = (score: Score) =>
  `fields=${score.fields} correct=${score.correct} wrong=${score.wrong} invented=${score.invented}`;

const totals = new Map<Subset, Score & { formats: number }>();
const all = { ...emptyScore(), formats: 0 };
for (const format of loadCorpus(subsets)) {
  const { suggestion, score } = await scoreFormat(format);
  console.log(`FORMAT ${format.subset}/${format.name} kind=${format.kind} ${line(score)} missed=${score.missed}`);
  if (verbose) {
    for (const note of score.notes) console.log(`  ${note}`);
    console.log(suggestion.expression.replace(/^/gm, "    | "));
  }
  const subsetTotal = totals.get(format.subset) ?? { ...emptyScore(), formats: 0 };
  addScore(subsetTotal, score);
  subsetTotal.formats++;
  totals.set(format.subset, subsetTotal);
  addScore(all, score);
  all.formats++;
}
for (const [subset, score] of totals) {
  console.log(`SUBSET ${subset} formats=${score.formats} ${line(score)} missed=${score.missed}`);
}
console.log(`RESULT formats=${all.formats} ${line(all)}`);
