import type { Logger } from "../log.js";
import type { HttpMetrics } from "./metrics.js";

/** What an app made by newApp() is built with (app.ts), and what its Node routes answer with (node-routes.ts). */
export interface AppOptions {
  log: Logger;
  metrics?: HttpMetrics;
  /** Headers set on every response, e.g. the sandbox's `x-svc-api-version` (§9.1). */
  responseHeaders?: Record<string, string>;
  /**
   * Paths whose error bodies carry the stable `code` and the `requestId` (the owner API, D-231); elsewhere the body is
   * §7's exactly (intake answers as the Inbound API does).
   */
  codedErrors?: (path: string) => boolean;
  /** A path as logs and metrics show it: a credential in a path (a hook URL's token) masked. */
  maskPath?: (path: string) => string;
}
