import type { SandboxCtx } from "../context.js";
import type { WebhookConfig } from "./config.js";
import type { Owner } from "./session/sessions.js";

/** What the console's verbs need: the sandbox's ctx, the webhook settings, the owner, and a way to wake delivery. */
export interface ConsoleCtx extends SandboxCtx {
  owner: Owner;
  webhooks: WebhookConfig;
  /** Asks the dispatcher to look for due deliveries now rather than at its next poll. */
  wake: () => void;
}
