import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { WorkerOptions } from "node:worker_threads";

export interface WorkerEntry {
  /** A file URL, or (for TypeScript sources) a bootstrap script run with `eval`. */
  script: URL | string;
  options: Pick<WorkerOptions, "eval">;
}

/**
 * Where the worker's code is. Compiled (`dist/`), this module is `.js` and so is `worker.js` beside it. From source
 * (`tsx src/main.ts`, vitest) it is `.ts`: Node 20 does not apply an `--import` loader given in a worker's execArgv to
 * the worker's entry, so a small bootstrap registers tsx inside the worker first and then imports `worker.ts`.
 */
export function workerEntry(moduleUrl: string = import.meta.url): WorkerEntry {
  if (!moduleUrl.endsWith(".ts")) return { script: new URL("./worker.js", moduleUrl), options: {} };
  const worker = new URL("./worker.ts", moduleUrl).href;
  const tsxPackage = createRequire(moduleUrl).resolve("tsx/package.json");
  // The package's public "./esm/api" export (import condition).
  const tsxApi = pathToFileURL(join(dirname(tsxPackage), "dist/esm/api/index.mjs")).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); });`;
  return { script: bootstrap, options: { eval: true } };
}
