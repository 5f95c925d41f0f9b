import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/partner-gateway.mjs", import.meta.url));
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGTERM");
  child = undefined;
});

/** Starts `partner-gateway sandbox --port 0` and reads its banner up to the last key line. */
function startCli(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    child = spawn(process.execPath, [BIN, "sandbox", "--port", "0"], {
      // Not the test runner's env: vitest sets MODE=test, which the CLI's own MODE setting would reject.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no banner in time:\n${out}`)), 20_000);
    // Off a terminal the banner goes to stderr and stdout carries JSON log lines only (src/cli/terminal.ts).
    const read = (chunk: unknown) => {
      out += String(chunk);
      if (out.includes("crestline-installer")) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

describe("§1 test environment: `partner-gateway sandbox`", () => {
  it("prints its URL and the public test keys, answers on that URL, and never prints the admin token", async () => {
    const token = "cli-admin-token-not-printed-0001";
    const banner = await startCli({ SANDBOX_ADMIN_TOKEN: token });
    const url = /listening on (http:\/\/\S+)/.exec(banner)?.[1];
    expect(url).toBeDefined();
    expect(banner).toContain("svc_test_SUNgn0001.test_secret_sunrise_general_01");
    expect(banner).not.toContain(token);

    const health = await fetch(`${url}/health/live`);
    expect(health.status).toBe(200);
    expect(health.headers.get("x-svc-api-version")).toBe("2026-08-26");
    const stats = await fetch(`${url}/sandbox/admin/stats`, { headers: { authorization: `Bearer ${token}` } });
    expect(stats.status).toBe(200);
  });
});
