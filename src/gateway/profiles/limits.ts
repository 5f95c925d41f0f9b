/**
 * The guardrails' defaults, in one place so docs/profiles.md and the tests quote the same numbers. A real mapping
 * reshapes one small object: it runs in well under a millisecond, nests a few dozen levels and builds lists of tens.
 */
export const LIMITS = {
  /** JSONata's cooperative time limit per evaluation (default 50 ms, docs/profiles.md). */
  timeoutMs: 50,
  /** The time limit of a golden sample's evaluation (samples judge the result; a cold or busy evaluator is slow). */
  sampleTimeoutMs: 250,
  /** Upper bound on a caller's `timeoutMs` (a preview may ask for more, never for a stuck evaluator). */
  maxTimeoutMs: 5_000,
  /** JSONata evaluation depth; far below where the evaluator's native stack would overflow. */
  stackDepth: 500,
  /** Longest sequence JSONata may build (ranges included: `[1..100000000]` fails at once). */
  sequenceLength: 100_000,
  /**
   * Longest string a regular expression may scan. Matching is linear, but re2js is ~10× slower than V8's engine and a
   * single match is not interruptible; 50,000 characters is ~50 ms at worst and far beyond any real field.
   */
  regexInputChars: 50_000,
  /** The mapped body as JSON text; the request body limit is 1 MB (§8), a mapping has no reason to grow it. */
  outputChars: 1_000_000,
  /** The text `$parseJson` decodes: a document inside a field of a request, so no larger than a request (§8). */
  parseJsonChars: 1_000_000,
  /** The hard deadline is the JSONata limit plus this grace, after which the evaluator is terminated and replaced. */
  deadlineGraceMs: 100,
  /** A version that breached a guardrail this recently runs on the one-evaluator suspect lane… */
  suspectForMs: 30_000,
  /** …with this time limit: a real mapping needs well under 1 ms, a runaway then costs 1/5 of the usual 50 ms. */
  suspectTimeoutMs: 10,
  /**
   * A version is on probation in each process until this many of its evaluations of real payloads (not golden
   * samples) were quick — ended within the suspect time limit, or spent less than it on a CPU (D-380): until then it
   * runs on the suspect lane (with its full time limit), so a profile that runs away on its first real payloads never
   * takes a shared evaluator.
   */
  probationEvaluations: 8,
  /**
   * The suspect lane's scheduling priority (nice): a version that runs away on real payloads gets about a tenth of the
   * CPU weight of the gateway and the shared evaluators when they compete, and all the spare CPU when they do not. An
   * evaluation that gets under a twentieth of its limit as CPU ends as starved: a version on probation is then tried on
   * the shared pool, a suspect one gets a 503. At 5 (a third of the weight) a runaway at 20 req/s still doubled the p99
   * of other keys on two cores (docs/performance.md).
   */
  suspectNice: 10,
  /**
   * The owner tooling's lane (previews, replays, golden samples through the owner API) runs at the suspect lane's
   * priority: it gets the CPU that intake leaves, which on a quiet gateway is all of a core…
   */
  toolingNice: 10,
  /** …and this many of its evaluations may wait; one more is a 503 with retry-after. */
  toolingQueue: 64,
  /** A time limit (or deadline) reached with less than 1/this of it as CPU was overload, not a runaway. */
  starvedCpuShare: 10,
  /**
   * The same judgement for one evaluation, on its own thread's CPU (thread-cpu.ts): a twentieth, since that excludes
   * the GC and compiler threads the process figure includes. A runaway gets its share of a core even on a machine
   * with a load of 20; an evaluation below this got next to none.
   */
  starvedThreadCpuShare: 20,
  /**
   * A version's first evaluation in an evaluator (cold: its code runs for the first time) that reached the time limit
   * with less than 1/this of it as CPU is run once more, warm, before it is judged (evaluator.ts, D-379).
   */
  coldRetryCpuShare: 2,
  /** Per-evaluator heap: enough for any mapping, small enough that a string-doubling loop dies quickly. */
  evaluatorHeapMb: 96,
  /** Compiled expressions cached per evaluator, keyed by version id. */
  compiledCacheSize: 500,
  /**
   * A version's first evaluations in each evaluator on the compiled path are also interpreted and compared (its golden
   * samples, run when it is saved and published, are among them); any difference pins it to the interpreter.
   */
  checkedEvaluations: 16,
  /**
   * Inline evaluation (inline.ts): a trusted compiled version past its probation maps payloads of at most this many
   * characters on the thread serving HTTP, without the hop to an evaluator process…
   */
  inlinePayloadChars: 32_000,
  /**
   * …within this much work (compiler/runtime.ts: a node's evaluation is 4 units, a step of a path 16, a character of
   * text 1/64). The shipped profiles take 260–860 on their samples; 16,384 is about 0.1 ms of warm code, and was
   * 2.5 ms at worst measured (code the runaway payload had just deoptimised)…
   */
  inlineMaxWork: 16_384,
  /** …building no string or JSON text longer than this… */
  inlineMaxChars: 100_000,
  /**
   * …and within this much wall time, a backstop a garbage collection or a preempted thread can also pass: the payload
   * is then handed to an evaluator, and the version demoted only if the evaluator too spent half of it as CPU.
   */
  inlineWallMs: 10,
  /**
   * A version past the work or size bound (a verdict on it), or the time bound as confirmed by an evaluator, is mapped
   * by the evaluators for this long; so is one that passed the time bound this many times unconfirmed.
   */
  inlineDemotedForMs: 60_000,
  inlineStrikes: 10,
} as const;
