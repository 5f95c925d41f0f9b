import { bundledEntry } from "../../profiles/evaluator-entry.js";

/**
 * The suggester thread's code (`worker-main.ts`, or compiled `worker-main.js`, with all it imports) bundled by esbuild
 * into one module, as the profile evaluators are (docs/decisions.md, D-198): a thread started from source then needs no
 * TypeScript loader, under tsx, vitest or the compiled build alike. Once per process, into a private temporary
 * directory removed when the process exits.
 */
export function suggestWorkerBundle(moduleUrl: string = import.meta.url): string {
  return bundledEntry(moduleUrl, "worker-main", { what: "the suggester's thread", file: "suggest-worker" });
}
