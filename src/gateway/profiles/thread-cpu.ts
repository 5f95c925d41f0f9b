import { closeSync, openSync, readSync } from "node:fs";

/**
 * CPU time of the calling thread, in ms — the evaluation's own, without V8's garbage-collector and compiler threads,
 * which `process.cpuUsage()` adds in. On a loaded machine those threads can spend several milliseconds while the
 * evaluation itself waits for a core, and a starved evaluation would be taken for a runaway (and its version for a
 * suspect). Linux: the first field of /proc/thread-self/schedstat (nanoseconds on a CPU), read with one pread on a
 * descriptor kept open (~1.5 µs). Elsewhere: the process's CPU time.
 */
export function threadCpuMs(): number {
  if (schedstat === undefined) schedstat = openSchedstat();
  if (schedstat !== null) {
    const length = readSync(schedstat, buffer, 0, buffer.length, 0);
    const onCpuNs = Number.parseInt(buffer.toString("latin1", 0, length), 10);
    if (Number.isFinite(onCpuNs)) return onCpuNs / 1e6;
  }
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

const buffer = Buffer.alloc(96);
let schedstat: number | null | undefined;

function openSchedstat(): number | null {
  try {
    const fd = openSync("/proc/thread-self/schedstat", "r");
    if (readSync(fd, buffer, 0, buffer.length, 0) > 0) return fd;
    closeSync(fd);
  } catch {
    // Not Linux, or schedstat is not available: fall back to the process's CPU time.
  }
  return null;
}
