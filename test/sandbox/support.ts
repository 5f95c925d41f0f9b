import { createLogger, type Logger } from "../../src/log.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/index.js";

/** An in-process sandbox with the default seed; each test file builds its own. */
export function newSandbox(options: SandboxOptions = {}): Sandbox & { key(name: string): string } {
  const sandbox = createSandbox({ log: createLogger({ level: "silent" }), ...options });
  return {
    ...sandbox,
    key(name: string): string {
      const found = sandbox.testKeys.find((k) => k.name === name);
      if (!found) throw new Error(`no seeded key ${name}`);
      return found.key;
    },
  };
}

export interface Json {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

type App = Sandbox["app"];

export async function send(
  app: App,
  method: string,
  path: string,
  init: { key?: string; json?: unknown; token?: string } = {},
): Promise<Json> {
  const headers: Record<string, string> = {};
  if (init.key) headers["x-api-key"] = init.key;
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, {
    method,
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export function lead(address: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { fullName: "Robin Test", email: "robin@example.com", phone: "+1 602 555 0100", address, ...overrides };
}

export type { Logger };
