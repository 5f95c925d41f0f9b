import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { setPriority } from "node:os";
import { evaluatorEntry } from "./evaluator-entry.js";
import type { EvaluateRequest, EvaluatorMessage } from "./protocol.js";

export interface EvaluatorProcessOptions {
  heapMb: number;
  /** Scheduling priority (nice, 0–19): a higher value gets only the CPU that others leave. */
  nice?: number;
  compiledCacheSize: number;
  onMessage(message: EvaluatorMessage): void;
  /** The process ended; `stderr` is the end of what it wrote, `outOfMemory` whether V8 reported its heap exhausted. */
  onExit(exit: EvaluatorExit): void;
}

export interface EvaluatorExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  outOfMemory: boolean;
}

const STDERR_TAIL = 2_048;
const OUT_OF_MEMORY = /heap out of memory|reached heap limit/i;

/**
 * One evaluator: a child process, not an evaluator thread. An evaluator thread shares the process's fate when V8 gives up on
 * its heap: one allocation larger than the evaluator's remaining headroom (JSON.stringify of a 200 MB string a profile
 * built by doubling) aborts the whole gateway despite `resourceLimits`. A process dies alone, and SIGKILL stops it even
 * inside a native call that never returns to JavaScript.
 */
export class EvaluatorProcess {
  private readonly child: ChildProcess;
  private stderr = "";
  private outOfMemory = false;

  constructor(options: EvaluatorProcessOptions) {
    const entry = evaluatorEntry();
    this.child = fork(entry.modulePath, [String(options.compiledCacheSize)], {
      execArgv: [...entry.execArgv, `--max-old-space-size=${options.heapMb}`],
      // Profiles never need the environment; an evaluator without it cannot leak a secret from it.
      env: {},
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    if (options.nice && this.child.pid !== undefined) {
      try {
        setPriority(this.child.pid, options.nice);
      } catch {
        // Not permitted here: the evaluator runs at normal priority; isolation still holds, only less strictly.
      }
    }
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (chunk: string) => {
      const joined = this.stderr + chunk;
      this.outOfMemory ||= OUT_OF_MEMORY.test(joined);
      this.stderr = joined.slice(-STDERR_TAIL);
    });
    this.child.on("message", (message: EvaluatorMessage) => options.onMessage(message));
    // "close", not "exit": it comes after stderr has been read to the end, so V8's last words are in `stderr`.
    this.child.on("close", (code, signal) =>
      options.onExit({ code, signal, stderr: this.stderr, outOfMemory: this.outOfMemory }),
    );
    // A failed spawn or a broken channel also ends in "exit"; without a listener "error" would throw.
    this.child.on("error", () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Throws synchronously when the request cannot be serialised (a payload nested too deeply for JSON.stringify). */
  send(requests: EvaluateRequest[]): void {
    this.child.send(requests);
  }

  /**
   * The process's CPU time in ms, read from /proc (Linux) without its help — it may be stuck; undefined elsewhere.
   * Fields 14 and 15 of /proc/<pid>/stat are user and system time in clock ticks (100 per second on Linux).
   */
  cpuMs(): number | undefined {
    try {
      const stat = readFileSync(`/proc/${this.child.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ticks = Number(fields[11]) + Number(fields[12]);
      return Number.isFinite(ticks) ? ticks * 10 : undefined;
    } catch {
      return undefined;
    }
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  /** Resolves once the process is gone. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("close", () => resolve()));
    this.kill();
    await exited;
  }
}
