import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

export interface EvaluatorEntry {
  /** The evaluator process's main module. */
  modulePath: string;
  /** Node options it runs with: the permission model, reading nothing but its own code. */
  execArgv: string[];
}

/** Read by the evaluator for its own CPU time (thread-cpu.ts); nothing else of the file system is. */
const THREAD_SCHEDSTAT = "/proc/thread-self/schedstat";

/**
 * How an evaluator process is started: its code (`evaluator-main.ts` or, compiled, `evaluator-main.js`, with everything it imports)
 * bundled by esbuild into one module, run under Node's permission model allowed to read only that file. An escape
 * from JSONata's guardrails then cannot read the gateway's database, its master key file or anything else on disk, nor
 * start a process or a thread (the model refuses both by default). The network is not restricted by Node 20–24's
 * model: Redis and PostgreSQL must require credentials (docs/decisions.md, "Evaluators under the permission model").
 *
 * Bundled once per process into a private temporary directory (mode 0700), removed when the process exits. Running
 * from source needs no loader in the evaluator (tsx would need threads, a child process and a writable cache).
 */
export function evaluatorEntry(moduleUrl: string = import.meta.url): EvaluatorEntry {
  const modulePath = evaluatorBundle(moduleUrl);
  return { modulePath, execArgv: permissionArgs([modulePath, THREAD_SCHEDSTAT]) };
}

/** Node's flags for a process that may read only `readable` (Node 20: experimental; 22.13+ and 24: stable). */
export function permissionArgs(readable: readonly string[]): string[] {
  const flags = process.allowedNodeEnvironmentFlags;
  const permission = flags.has("--permission") ? "--permission" : "--experimental-permission";
  return [
    permission,
    ...readable.map((path) => `--allow-fs-read=${path}`),
    // Node 20 warns that the model is experimental on every start, into the stderr the pool keeps for exit reports.
    ...(permission === "--experimental-permission" && flags.has("--disable-warning")
      ? ["--disable-warning=ExperimentalWarning"]
      : []),
  ];
}

const bundles = new Map<string, string>();

function evaluatorBundle(moduleUrl: string): string {
  return bundledEntry(moduleUrl, "evaluator-main", { what: "the evaluator", file: "evaluator" });
}

/**
 * `<main>.ts` (or, compiled, `<main>.js`) beside `moduleUrl`, with everything it imports, bundled by esbuild into one
 * ES module in a private temporary directory removed when the process exits; once per process and module. The profile
 * evaluators and the suggester's thread run from such a bundle (D-198): no TypeScript loader needed where they start.
 */
export function bundledEntry(moduleUrl: string, main: string, names: { what: string; file: string }): string {
  const cacheKey = `${moduleUrl}#${main}`;
  const known = bundles.get(cacheKey);
  if (known) return known;
  const entry = fileURLToPath(new URL(moduleUrl.endsWith(".ts") ? `./${main}.ts` : `./${main}.js`, moduleUrl));
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "silent",
    legalComments: "none",
    // CommonJS dependencies (jsonata) require Node's built-ins; an ES module has no `require` of its own.
    banner: {
      js: 'import { createRequire as __pgRequire } from "node:module"; const require = __pgRequire(import.meta.url);',
    },
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error(`${names.what} could not be bundled`);
  const dir = mkdtempSync(join(tmpdir(), `partner-gateway-${names.file}-`));
  const path = join(dir, `${names.file}.mjs`);
  writeFileSync(path, code, { mode: 0o400 });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  bundles.set(cacheKey, path);
  return path;
}
