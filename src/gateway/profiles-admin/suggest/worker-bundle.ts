import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const bundles = new Map<string, string>();

/**
 * The suggester thread's code (`worker-main.ts`, or compiled `worker-main.js`, with all it imports) bundled by esbuild
 * into one module, as the profile evaluators are (docs/decisions.md, D-198): a thread started from source then needs no
 * TypeScript loader, under tsx, vitest or the compiled build alike. Once per process, into a private temporary
 * directory removed when the process exits.
 */
export function suggestWorkerBundle(moduleUrl: string = import.meta.url): string {
  const known = bundles.get(moduleUrl);
  if (known) return known;
  const entry = fileURLToPath(new URL(moduleUrl.endsWith(".ts") ? "./worker-main.ts" : "./worker-main.js", moduleUrl));
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
  if (code === undefined) throw new Error("the suggester's thread could not be bundled");
  const dir = mkdtempSync(join(tmpdir(), "partner-gateway-suggest-"));
  const path = join(dir, "suggest-worker.mjs");
  writeFileSync(path, code, { mode: 0o400 });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  bundles.set(moduleUrl, path);
  return path;
}
