import { describe, expect, it } from "vitest";
import { threadCpuMs } from "../../../src/gateway/profiles/thread-cpu.js";

describe("threadCpuMs: the evaluating thread's own CPU time", () => {
  it("grows while the thread computes and stays put while it waits", async () => {
    const start = threadCpuMs();
    const wallStart = performance.now();
    const until = wallStart + 30;
    let spins = 0;
    while (performance.now() < until) spins++;
    const computed = threadCpuMs() - start;
    const wall = performance.now() - wallStart;
    expect(spins).toBeGreaterThan(0);
    // On a loaded machine the thread may get much less of the wall time, never more (plus the clock's granularity).
    expect(computed).toBeGreaterThan(0);
    expect(computed).toBeLessThan(wall + 5);
    const beforeWait = threadCpuMs();
    // Time itself is the test: a wait of 100 ms, which costs the thread no CPU.
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Waiting costs no CPU; the test runner may use the thread a little meanwhile (CI runs files in parallel).
    expect(threadCpuMs() - beforeWait).toBeLessThan(40);
  });
});
