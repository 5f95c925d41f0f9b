import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, describe, expect, it } from "vitest";
import {
  ProfileSuggester,
  SuggestionBusyError,
  SuggestionClosedError,
  SuggestionTimeoutError,
} from "../../../../src/gateway/profiles-admin/suggest/index.js";
import type { SuggestKind } from "../../../../src/gateway/profiles-admin/suggest/types.js";

/**
 * docs/decisions.md, D-314: suggestions never block intake — a thread of their own, one at a time per process with a
 * small queue, a time limit — and answer a 1 MB payload of 10,000 keys within a second.
 */

/** A stand-in thread: it answers at once, except to kind "hang", which it never answers (a runaway suggestion). */
const dir = mkdtempSync(join(tmpdir(), "suggest-runner-test-"));
const HANGING = join(dir, "hanging.mjs");
writeFileSync(
  HANGING,
  `import { parentPort } from "node:worker_threads";
parentPort.on("message", (request) => {
  const input = "text" in request ? JSON.parse(request.text) : request.input;
  if (input.kind === "hang") for (;;) {}
  parentPort.postMessage({ id: request.id, ok: true, suggestion: { expression: "{}", fields: [], unmapped: [], missing: [input.kind] } });
});
parentPort.postMessage({ ready: true });
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hang = { kind: "hang" as SuggestKind, payloads: [{}] };
const lead = { kind: "lead" as const, payloads: [{}] };

/** A vendor payload of about 1 MB with 10,000 keys, the lead's own fields among them. */
function largePayload(): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    contact: { first_name: "Ada", last_name: "Byron", email: "ada@example.com", phone: "(512) 555-0100" },
  };
  for (let i = 0; i < 10_000; i++) payload[`custom_field_${i}`] = `answer number ${i}: ${"x".repeat(70)}`;
  return payload;
}

describe("the suggester's thread (D-314)", () => {
  it("answers a 1 MB payload of 10,000 keys within a second, the event loop meanwhile free", async () => {
    const suggester = new ProfileSuggester();
    try {
      // The thread's first start (bundling its code, loading it) is a one-off of the process, not the suggestion's.
      await suggester.suggest({ kind: "lead", payloads: [{ email: "warm@example.com" }] });
      const text = JSON.stringify({ kind: "lead", payloads: [largePayload()] });
      expect(text.length).toBeGreaterThan(1_000_000);
      const loop = performance.eventLoopUtilization();
      const started = performance.now();
      const suggestion = await suggester.suggestFromText(text);
      const elapsed = performance.now() - started;
      const busy = performance.eventLoopUtilization(loop);
      expect(suggestion.fields.map((f) => f.field)).toEqual(["fullName", "email", "phone"]);
      expect(suggestion.unmapped.length).toBeGreaterThan(0);
      expect(elapsed).toBeLessThan(1_000);
      // The work was the thread's: this thread's loop sat idle, free to serve intake.
      expect(busy.utilization).toBeLessThan(0.25);
    } finally {
      await suggester.close();
    }
  });

  it("runs one suggestion at a time, queues a few, and refuses more while the queue is full", async () => {
    const suggester = new ProfileSuggester({ limits: { maxQueue: 1, timeoutMs: 500 }, entry: HANGING });
    try {
      const running = suggester.suggest(hang);
      const queued = suggester.suggest(lead);
      await expect(suggester.suggest(lead)).rejects.toBeInstanceOf(SuggestionBusyError);
      expect(suggester.pending).toBe(2);
      await expect(running).rejects.toBeInstanceOf(SuggestionTimeoutError);
      // The queued one runs after it, on a new thread: the runaway one was stopped, not waited for.
      await expect(queued).resolves.toMatchObject({ missing: ["lead"] });
      expect(suggester.pending).toBe(0);
    } finally {
      await suggester.close();
    }
  });

  it("stops a suggestion past its time limit, and answers the next one", async () => {
    const suggester = new ProfileSuggester({ limits: { timeoutMs: 200 }, entry: HANGING });
    try {
      const started = performance.now();
      await expect(suggester.suggest(hang)).rejects.toThrow(/took longer than 200 ms/);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      await expect(suggester.suggest(lead)).resolves.toMatchObject({ missing: ["lead"] });
    } finally {
      await suggester.close();
    }
  });

  it("refuses what waits and what comes once closed", async () => {
    const suggester = new ProfileSuggester({ limits: { timeoutMs: 5_000 }, entry: HANGING });
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );
    const running = refusal(suggester.suggest(hang));
    const queued = refusal(suggester.suggest(lead));
    await suggester.close();
    expect(await running).toBeInstanceOf(SuggestionClosedError);
    expect(await queued).toBeInstanceOf(SuggestionClosedError);
    await expect(suggester.suggest(lead)).rejects.toBeInstanceOf(SuggestionClosedError);
  });
});
