import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Processes of a deployment on several machines, each in a working directory of its own that nothing else uses: a
 * machine shares nothing with another but the network (PostgreSQL, Redis, the upstream).
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The CLI as an operator runs it (`partner-gateway …`; the TypeScript source through tsx when nothing is built). */
export const BIN = join(ROOT, "bin/partner-gateway.mjs");
/** tsx's loader by its path: a process whose working directory is an empty folder cannot resolve `tsx` by name. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** An empty folder standing for one machine's disk. */
export function machineDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `pg-machine-${name}-`));
}

/** The files of a machine's folder that are SQLite databases or their journals. */
export function sqliteFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) =>
    /\.(db|sqlite3?)(-wal|-shm|-journal)?$/.test(f),
  );
}

export interface Machine {
  name: string;
  dir: string;
  child: ChildProcess;
  /** Resolves with the first stdout or stderr line that `match` accepts (rejects if the process exits first). */
  line(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** When the last line that `match` accepts arrived (epoch ms), or -1. */
  lastSeen(match: (line: string) => boolean): number;
  /** The last lines printed, for a failure's message. */
  tail(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` in `dir` with exactly `env` (not the test runner's: vitest sets MODE=test, which the CLI's own
 * MODE setting would refuse). Both output streams are read to the end, so a chatty process never blocks on a full pipe.
 */
export function startMachine(name: string, dir: string, args: string[], env: Record<string, string>): Machine {
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const kept: { line: string; at: number }[] = [];
  const recent: string[] = [];
  const waiters = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const onLine = (line: string) => {
    recent.push(line);
    if (recent.length > 40) recent.shift();
    if (/took over|stepped down|listening|worker running|error/i.test(line)) kept.push({ line, at: Date.now() });
    for (const waiter of waiters) {
      if (waiter.match(line)) {
        waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream as NodeJS.ReadableStream }).on("line", onLine);
  }
  const tail = () => `${name} (${dir}):\n${recent.join("\n")}`;
  const signal = (sig: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill(sig);
    });
  return {
    name,
    dir,
    child,
    line(match, timeoutMs = 120_000) {
      const seen = kept.find((k) => match(k.line));
      if (seen !== undefined) return Promise.resolve(seen.line);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name}: no such line in ${timeoutMs} ms\n${tail()}`)),
          timeoutMs,
        );
        waiters.add({
          match,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void exited.then(({ code, signal: sig }) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (${code ?? sig}) before the line\n${tail()}`));
        });
      });
    },
    lastSeen: (match) => kept.findLast((k) => match(k.line))?.at ?? -1,
    tail,
    exited,
    kill9: () => signal("SIGKILL"),
    async stop() {
      const stopped = signal("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await stopped;
      clearTimeout(timer);
    },
  };
}

/** `partner-gateway <command> …` on a machine of its own. */
export function startCli(name: string, dir: string, args: string[], env: Record<string, string>): Machine {
  return startMachine(name, dir, [BIN, ...args], env);
}

/** A TypeScript script (through tsx) on a machine of its own. */
export function startScript(name: string, dir: string, script: string, args: string[], env: Record<string, string>) {
  return startMachine(name, dir, ["--import", TSX, join(ROOT, script), ...args], env);
}
