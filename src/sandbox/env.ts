import type { Context } from "hono";
import type { AppEnv } from "../http/app.js";
import type { JsonBodyVariables } from "../http/json-body.js";
import type { Caller, CallerCtx, SandboxCtx } from "./context.js";
import type { IdempotentRequest } from "./installer/idempotency/idempotent-request.js";
import type { Owner } from "./webhooks/session/sessions.js";

export interface SandboxVariables extends JsonBodyVariables {
  /** Set by the inbound guard once the key is authenticated and admitted (§5, §8). */
  caller: Caller;
  ctx: SandboxCtx;
  /** Set by the console's session check (§4.3, §5.7). */
  owner: Owner;
  /** Set by `idempotent()` on an Installer API write: stores the write's answer under its Idempotency-Key (§8). */
  idempotency: IdempotentRequest;
}

export type SandboxEnv = AppEnv<SandboxVariables>;

/** The caller set by the inbound guard; a route behind the guard always has one. */
export function callerOf(c: Context<SandboxEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new Error("route reached without an authenticated caller");
  return caller;
}

export function callerCtx(c: Context<SandboxEnv>): CallerCtx {
  return { ...c.get("ctx"), caller: callerOf(c) };
}
