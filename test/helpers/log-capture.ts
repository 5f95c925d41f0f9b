import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/log.js";

/** A logger whose lines a test can read back (raw text too, to look for leaked secrets). */
export function captureLog(): { log: Logger; lines: Record<string, unknown>[]; text: () => string } {
  const raw: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      const text = String(chunk);
      raw.push(text);
      for (const line of text.split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger({ destination, level: "debug" }), lines, text: () => raw.join("") };
}
