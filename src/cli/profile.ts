import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import {
  bindingsIssue,
  describeOutcome,
  droppedWarnings,
  findProfileDirs,
  formatDiff,
  type GoldenReport,
  type LoadedProfile,
  loadProfileDir,
  ProfileEngine,
  ProfileLoadError,
  runGoldenSamples,
} from "../gateway/profiles/index.js";
import { type Io, readStdin } from "./io.js";

const USAGE = `usage:
  partner-gateway profile test [PATH]                  run the golden samples of every profile under PATH (default profiles/)
  partner-gateway profile preview PROFILE_DIR PAYLOAD   map one payload file (or a golden sample's payload; "-" for
                                                       stdin) and print the canonical body (or the records), or the errors
`;

/** `partner-gateway profile test|preview` (docs/profiles.md, CLI). Exit code: 0 all good, 1 a sample or the mapping failed, 2 usage. */
export async function run(argv: string[]): Promise<void> {
  process.exitCode = await profileCommand(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: readStdin,
  });
}

/** The command itself; `engine` lets a caller (a test) lend one, which is then not closed here. */
export async function profileCommand(argv: string[], io: Io, engine?: ProfileEngine): Promise<number> {
  const [command, ...args] = argv;
  const withEngine = async (body: (engine: ProfileEngine) => Promise<number>) => {
    // One-shot tooling: no other tenant to protect, so no suspect lane (and one process fewer to start).
    const used = engine ?? new ProfileEngine({ suspectForMs: 0 });
    try {
      return await body(used);
    } finally {
      if (!engine) await used.close();
    }
  };
  if (command === "test" && args.length <= 1) return withEngine((e) => test(e, args[0] ?? "profiles", io));
  if (command === "preview" && args.length === 2 && args[0] && args[1]) {
    const [dir, payloadFile] = [args[0], args[1]];
    return withEngine((e) => preview(e, dir, payloadFile, io));
  }
  io.stderr(USAGE);
  return 2;
}

async function test(engine: ProfileEngine, path: string, io: Io): Promise<number> {
  const dirs = await findProfileDirs(resolve(path)).catch((error: unknown) => {
    io.stderr(`${path}: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  });
  if (!dirs) return 1;
  if (dirs.length === 0) {
    io.stderr(`no profiles under ${path} (a profile is a directory with profile.json)\n`);
    return 1;
  }
  let samples = 0;
  let failures = 0;
  for (const dir of dirs) {
    const profile = await load(dir, io);
    if (!profile) {
      failures++;
      continue;
    }
    const report = await runGoldenSamples(engine, profile);
    io.stdout(formatReport(profile, report));
    samples += report.total;
    failures += report.passed ? 0 : Math.max(report.failed, 1);
  }
  io.stdout(
    `\n${dirs.length} profile(s), ${samples} sample(s): ${failures === 0 ? "all passed" : `${failures} failed`}\n`,
  );
  return failures === 0 ? 0 : 1;
}

function formatReport(profile: LoadedProfile, report: GoldenReport): string {
  const lines = [`${profile.name} (${profile.kind}, ${relative(process.cwd(), profile.dir) || "."})`];
  if (report.compileError) {
    const { message, line, column } = report.compileError;
    lines.push(`  ✗ profile.jsonata${line === undefined ? "" : `:${line}:${column}`}: ${message}`);
  } else if (report.total === 0) {
    lines.push("  ✗ no golden samples (an untested profile cannot be published)");
  }
  for (const result of report.results) {
    const ms = `${result.outcome.elapsedMs.toFixed(1)} ms`;
    lines.push(result.passed ? `  ✓ ${result.name} (${ms})` : `  ✗ ${result.name} — ${result.reason}`);
    for (const entry of result.diff) lines.push(`      ${formatDiff(entry)}`);
  }
  // D-321: a key the canonical body does not have passes the samples and vanishes; said per key, never failed.
  for (const warning of report.warnings ?? []) lines.push(`  ! ${warning.sample}: ${warning.key}: ${warning.message}`);
  return `${lines.join("\n")}\n`;
}

async function preview(engine: ProfileEngine, dir: string, payloadFile: string, io: Io): Promise<number> {
  const profile = await load(dir, io);
  if (!profile) return 1;
  let input: { payload: unknown; bindings?: Record<string, unknown> };
  try {
    const text = payloadFile === "-" && io.stdin ? await io.stdin() : await readFile(payloadFile, "utf8");
    input = unwrapSample(JSON.parse(text));
    const issue = input.bindings === undefined ? undefined : bindingsIssue(input.bindings);
    if (issue !== undefined) throw new Error(`bindings: ${issue}`);
  } catch (error) {
    io.stderr(`${payloadFile}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const outcome = await engine.map({ ...profile, ...input });
  if (outcome.ok) {
    // A profile that produces records (docs/profiles.md, "Records") prints them in order, as a sample expects them.
    const printed = "records" in outcome ? { records: outcome.records } : outcome.body;
    io.stdout(`${JSON.stringify(printed, null, 2)}\n`);
    const what = "records" in outcome ? ` to ${describeOutcome(outcome)}` : "";
    io.stderr(`mapped by ${profile.name}${what} in ${outcome.elapsedMs.toFixed(2)} ms\n`);
    for (const warning of droppedWarnings(outcome)) io.stderr(`warning: ${warning.key}: ${warning.message}\n`);
    return 0;
  }
  io.stderr(`${describeOutcome(outcome)}\n`);
  if (outcome.kind === "validation") io.stderr(`profile output:\n${JSON.stringify(outcome.output, null, 2)}\n`);
  return 1;
}

/**
 * A golden sample file can be previewed as it is: its `payload` is what the vendor posts, mapped with the sample's
 * `bindings` (docs/profiles.md, "Bindings").
 */
function unwrapSample(document: unknown): { payload: unknown; bindings?: Record<string, unknown> } {
  const isSample = typeof document === "object" && document !== null && "payload" in document && "expect" in document;
  if (!isSample) return { payload: document };
  const bindings = "bindings" in document ? document.bindings : undefined;
  if (bindings === undefined) return { payload: document.payload };
  if (typeof bindings !== "object" || bindings === null || Array.isArray(bindings))
    throw new Error("bindings: must be an object of variables");
  return { payload: document.payload, bindings: bindings as Record<string, unknown> };
}

async function load(dir: string, io: Io): Promise<LoadedProfile | undefined> {
  try {
    return await loadProfileDir(dir);
  } catch (error) {
    if (!(error instanceof ProfileLoadError)) throw error;
    io.stderr(`✗ ${error.message}\n`);
    return undefined;
  }
}
