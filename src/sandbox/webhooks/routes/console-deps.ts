import type { Context } from "hono";
import type { SandboxEnv } from "../../env.js";
import type { WebhookConfig } from "../config.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { ownerOf } from "../session/console-auth.js";

export interface ConsoleDeps {
  config: WebhookConfig;
  wake: () => void;
}

export function consoleCtx(c: Context<SandboxEnv>, deps: ConsoleDeps): ConsoleCtx {
  return { ...c.get("ctx"), owner: ownerOf(c), webhooks: deps.config, wake: deps.wake };
}
