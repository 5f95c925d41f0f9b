/**
 * A preload (`node --import bench/lib/gc-preload.mjs`) for bench/tracing-cost.ts's servers: the process's GC pauses so
 * far, in ms, written to `$BENCH_GC_DIR/gc-<pid>` every 100 ms (PerformanceObserver "gc" entries: the pauses on the
 * main thread, not the collector's helper threads).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";

const file = join(process.env.BENCH_GC_DIR ?? ".", `gc-${process.pid}`);
let total = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) total += entry.duration;
}).observe({ entryTypes: ["gc"] });
setInterval(() => writeFileSync(file, `${total}`), 100).unref();
