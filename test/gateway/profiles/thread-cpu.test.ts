import { describe, expect, it } from "vitest";
import { threadCpuMs } from "../../../src/gateway/profiles/thread-cpu.js";

describe("threadCpuMs: the evaluating thread's own CPU time", () => {
  it("grows while the thread computes and stays put while it waits", async () => {
    const start = threadCpuMs();
    const until = performance.now() + 30;
    let spins = 0;
    while (performance.now() < until) spins++;
    const computed = threadCpuMs() - start;
    expect(spins).toBeGreaterThan(0);
    // Wall time was 30 ms; on a loaded machine the thread may get much less of it, never more.
    expect(computed).toBeGreaterThan(0);
    expect(computed).toBeLessThan(40);
    const beforeWait = threadCpuMs();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(threadCpuMs() - beforeWait).toBeLessThan(10);
  });
});
