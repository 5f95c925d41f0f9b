import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * Starts a TypeScript script in its own Node process (through tsx) and waits for its first JSON line. `nodeOptions`
 * go to Node itself (`--expose-gc`); `env` is added to this process's environment for the child.
 */
export async function startChild<T>(
  script: string,
  args: string[] = [],
  nodeOptions: string[] = [],
  env: Record<string, string> = {},
): Promise<{ info: T; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...nodeOptions, "--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const info = await new Promise<T>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.once("line", (line) => resolve(JSON.parse(line) as T));
  });
  return {
    info,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
