import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openGatewayDb } from "../../../src/db/client.js";
import { evaluatorEntry } from "../../../src/gateway/profiles/evaluator-entry.js";
import { EvaluatorProcess } from "../../../src/gateway/profiles/evaluator-process.js";
import { LIMITS } from "../../../src/gateway/profiles/limits.js";
import type { EvaluatorMessage } from "../../../src/gateway/profiles/protocol.js";

/**
 * docs/decisions.md, "Evaluators under the permission model": an evaluator process runs one bundled module under
 * Node's permission model and may read that module only. What an escape from JSONata would try first — the gateway's
 * database, its master key — is refused; so are processes and threads.
 */

const workers: EvaluatorProcess[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

/** Runs `code` in a process started with exactly the evaluator's Node options. */
function asAnEvaluator(code: string): Record<string, string> {
  const { execArgv } = evaluatorEntry();
  const run = spawnSync(process.execPath, [...execArgv, "--input-type=module", "-e", code], {
    env: {},
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout) as Record<string, string>;
}

describe("an evaluator process reads nothing but its own code", () => {
  it("is refused the gateway's database and master key file; reads its own module", () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-evaluator-perm-"));
    const databasePath = join(dir, "gateway.db");
    openGatewayDb(databasePath).close();
    const masterKeyPath = join(dir, "master.key");
    writeFileSync(masterKeyPath, "0".repeat(64), { mode: 0o600 });
    const own = evaluatorEntry().modulePath;
    const attempt = (path: string) =>
      `(() => { try { fs.readFileSync(${JSON.stringify(path)}); return "read"; } catch (e) { return e.code; } })()`;
    const result = asAnEvaluator(`
      import fs from "node:fs";
      import { execFileSync } from "node:child_process";
      import { Worker } from "node:worker_threads";
      const spawn = () => { try { execFileSync("cat", [${JSON.stringify(databasePath)}]); return "ran"; } catch (e) { return e.code; } };
      const thread = () => { try { new Worker("1", { eval: true }); return "started"; } catch (e) { return e.code; } };
      process.stdout.write(JSON.stringify({
        database: ${attempt(databasePath)},
        wal: ${attempt(`${databasePath}-wal`)},
        masterKey: ${attempt(masterKeyPath)},
        passwd: ${attempt("/etc/passwd")},
        own: ${attempt(own)},
        spawn: spawn(),
        thread: thread(),
      }));
    `);
    expect(result).toEqual({
      database: "ERR_ACCESS_DENIED",
      wal: "ERR_ACCESS_DENIED",
      masterKey: "ERR_ACCESS_DENIED",
      passwd: "ERR_ACCESS_DENIED",
      own: "read",
      spawn: "ERR_ACCESS_DENIED",
      thread: "ERR_ACCESS_DENIED",
    });
    // The positive control: without the evaluator's options the same process reads the database.
    const open = spawnSync(process.execPath, ["-e", `require("fs").readFileSync(${JSON.stringify(databasePath)})`]);
    expect(open.status).toBe(0);
  });

  it("is how the pool starts its evaluators, which then map as before", async () => {
    const messages: EvaluatorMessage[] = [];
    const worker = new EvaluatorProcess({
      heapMb: LIMITS.evaluatorHeapMb,
      compiledCacheSize: 10,
      onMessage: (message) => messages.push(message),
      onExit: () => {},
    });
    workers.push(worker);
    await expect.poll(() => messages.some((m) => m.type === "ready"), { timeout: 10_000 }).toBe(true);
    const args = readFileSync(`/proc/${worker.pid}/cmdline`, "utf8").split("\0");
    expect(args).toEqual(expect.arrayContaining(evaluatorEntry().execArgv));
    expect(args.filter((a) => a.startsWith("--allow-"))).toEqual([
      `--allow-fs-read=${evaluatorEntry().modulePath}`,
      "--allow-fs-read=/proc/thread-self/schedstat",
    ]);
    worker.send([
      {
        id: 1,
        versionId: "v",
        kind: "outbound",
        expression: '{"hi": name}',
        payload: { name: "Ann" },
        timeoutMs: 1_000,
      },
    ]);
    await expect
      .poll(() => messages.find((m) => m.type === "replies")?.replies[0], { timeout: 10_000 })
      .toMatchObject({ id: 1, ok: true, body: { hi: "Ann" } });
  });

  it("bundles the compiled evaluator-main.js the same way", () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-evaluator-dist-"));
    writeFileSync(join(dir, "evaluator-main.js"), 'process.stdout.write("compiled evaluator");\n');
    const entry = evaluatorEntry(pathToFileURL(join(dir, "pool.js")).href);
    const run = spawnSync(process.execPath, [...entry.execArgv, entry.modulePath], { env: {}, encoding: "utf8" });
    expect(run.stdout).toBe("compiled evaluator");
    expect(entry.modulePath.startsWith(dir)).toBe(false);
  });
});
