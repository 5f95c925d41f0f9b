import { readdirSync, readFileSync } from "node:fs";

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * CPU time (ms) used so far by a process and all its descendants still alive, read from /proc (Linux; 0 elsewhere):
 * a server's cost per request, unlike its throughput, does not depend on how much of the machine others take.
 */
export function processTreeCpuMs(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) total += ownCpuMs(member);
  return total;
}

function ownCpuMs(pid: number): number {
  const fields = statFields(pid);
  // utime and stime, in clock ticks of 10 ms.
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10 : 0;
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

function processTree(root: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [root];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    const parent = Number(statFields(Number(entry))?.[1]);
    if (!Number.isFinite(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const visit = (pid: number) => {
    tree.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}
