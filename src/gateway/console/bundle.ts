import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The console's front-end sources (TypeScript and CSS), beside src/ so the built image ships them too. */
export const CONSOLE_SOURCE = fileURLToPath(new URL("../../../console/", import.meta.url));

export interface ConsoleAsset {
  body: string;
  contentType: string;
  etag: string;
}

export interface ConsoleBundle {
  js: ConsoleAsset;
  css: ConsoleAsset;
  buildMs: number;
}

function asset(body: string, contentType: string): ConsoleAsset {
  return { body, contentType, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` };
}

/**
 * Bundles the console with esbuild in memory (CodeMirror and the pages into one ES module). Nothing is written to
 * disk and nothing is committed: the gateway builds it on the first request to /console and keeps it.
 */
export async function bundleConsole(source = CONSOLE_SOURCE): Promise<ConsoleBundle> {
  const started = performance.now();
  const result = await build({
    entryPoints: [`${source}main.ts`],
    tsconfig: `${source}tsconfig.json`,
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
    legalComments: "none",
  });
  const js = result.outputFiles[0]?.text ?? "";
  const css = await readFile(`${source}console.css`, "utf8");
  return {
    js: asset(js, "text/javascript; charset=utf-8"),
    css: asset(css, "text/css; charset=utf-8"),
    buildMs: performance.now() - started,
  };
}

/** One build per process, started by the first request and shared by every request after it. */
export function cachedBundle(make: () => Promise<ConsoleBundle> = bundleConsole): () => Promise<ConsoleBundle> {
  let pending: Promise<ConsoleBundle> | undefined;
  return () => {
    pending ??= make().catch((error: unknown) => {
      pending = undefined; // a failed build is tried again on the next request
      throw error;
    });
    return pending;
  };
}
