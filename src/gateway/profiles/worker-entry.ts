import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface WorkerEntry {
  /** The evaluator process's main module. */
  modulePath: string;
  /** Node options it needs to load that module. */
  execArgv: string[];
}

/**
 * Where the evaluator process's code is, relative to this module. Compiled (`dist/`), this module is `.js` and so is
 * `worker.js` beside it. From source (`tsx src/main.ts`, vitest) it is `.ts`, and the child loads `worker.ts` through
 * tsx's loader, resolved from here (not from the working directory) so it is found wherever the process was started.
 */
export function workerEntry(moduleUrl: string = import.meta.url): WorkerEntry {
  if (!moduleUrl.endsWith(".ts")) return { modulePath: fileURLToPath(new URL("./worker.js", moduleUrl)), execArgv: [] };
  const tsxLoader = pathToFileURL(createRequire(moduleUrl).resolve("tsx")).href;
  return { modulePath: fileURLToPath(new URL("./worker.ts", moduleUrl)), execArgv: ["--import", tsxLoader] };
}
