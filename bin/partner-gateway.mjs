#!/usr/bin/env node
// Runs the compiled CLI when it has been built (`npm run build`), the TypeScript source through tsx otherwise.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const compiled = fileURLToPath(new URL("../dist/main.js", import.meta.url));
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("../src/main.ts", import.meta.url).href);
}
