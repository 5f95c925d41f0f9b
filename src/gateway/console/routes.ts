import type { Context, Hono } from "hono";
import type { AppEnv } from "../../http/app.js";
import { type ConsoleAsset, type ConsoleBundle, cachedBundle } from "./bundle.js";
import { CONSOLE_CSP, consoleShell } from "./shell.js";

const ASSETS = { js: "/console/assets/console.js", css: "/console/assets/console.css" };

function secure(c: Context): void {
  c.header("content-security-policy", CONSOLE_CSP);
  c.header("x-content-type-options", "nosniff");
  c.header("referrer-policy", "no-referrer");
  c.header("x-frame-options", "DENY");
}

function serve(c: Context, asset: ConsoleAsset): Response {
  secure(c);
  c.header("etag", asset.etag);
  c.header("cache-control", "no-cache");
  if (c.req.header("if-none-match") === asset.etag) return c.body(null, 304);
  c.header("content-type", asset.contentType);
  return c.body(asset.body, 200);
}

/**
 * The owner console under /console: one HTML shell for every page and two assets. It is a front end over the owner
 * API and holds no rule of its own; signing in, CSRF and tenant checks are the owner API's.
 */
export function consoleRoutes<E extends AppEnv>(
  app: Hono<E>,
  options: { bundle?: () => Promise<ConsoleBundle> } = {},
): void {
  const bundle = options.bundle ?? cachedBundle();
  app.get(ASSETS.js, async (c) => serve(c, (await bundle()).js));
  app.get(ASSETS.css, async (c) => serve(c, (await bundle()).css));
  app.get("/console/assets/*", (c) => c.json({ error: "not found" }, 404));
  const shell = (c: Context) => {
    secure(c);
    c.header("cache-control", "no-cache");
    return c.html(consoleShell(ASSETS));
  };
  app.get("/console", shell);
  app.get("/console/*", shell);
}
