import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/partner-gateway.mjs", import.meta.url));
const ADMIN_TOKEN = "serve-process-admin-token-0001";
const CANONICAL_KEY = "svc_test_democanonical01.demo_secret_canonical_000001";

interface Started {
  child: ChildProcess;
  gatewayUrl: string;
  sandboxUrl: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

/** `partner-gateway serve` as `npm start` runs it (demo config, embedded sandbox), on free ports, not on a terminal. */
function startServe(env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [BIN, "serve"], {
    // Not the test runner's env: vitest sets MODE=test, which the CLI's own MODE setting would reject.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: "0",
      SANDBOX_PORT: "0",
      DATABASE_PATH: join(mkdtempSync(join(tmpdir(), "pg-serve-")), "gateway.db"),
      SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk) => {
    out += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    err += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner in time:\n${out}\n${err}`)), 30_000);
    const check = () => {
      const gatewayUrl = /gateway listening on (http:\/\/\S+)/.exec(err)?.[1];
      const sandboxUrl = /embedded sandbox \(the upstream\) on (http:\/\/\S+)/.exec(err)?.[1];
      if (gatewayUrl && sandboxUrl && err.includes("try a native HomeQuote lead")) {
        clearTimeout(timer);
        resolve({ child, gatewayUrl, sandboxUrl, stdout: () => out, stderr: () => err, exited });
      }
    };
    child.stderr?.on("data", check);
    void exited.then(({ code }) => reject(new Error(`exited ${code}:\n${out}\n${err}`)));
  });
}

/** The keys of a JSON object's top level as written, repeats included (JSON.parse keeps only the last). */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === "\\" ? 2 : 1;
      if (depth === 1 && line[end + 1] === ":") keys.push(line.slice(i + 1, end));
      i = end;
    } else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") depth--;
  }
  return keys;
}

async function admin(sandboxUrl: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${sandboxUrl}/sandbox/admin${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("`partner-gateway serve` as a process", () => {
  it("on SIGTERM answers the request in flight with the platform's answer, then exits 0 within seconds", async () => {
    const serve = await startServe({ LOG_LEVEL: "info" });
    // The platform holds its answer for a while: the vendor's request is still waiting on it when SIGTERM comes.
    expect(
      (await admin(serve.sandboxUrl, "/faults", { route: "POST /api/inbound/leads", answerLatencyMs: 1_500 })).status,
    ).toBe(201);
    const answer = fetch(`${serve.gatewayUrl}/api/inbound/leads`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": CANONICAL_KEY, prefer: "wait=10" },
      body: JSON.stringify({
        fullName: "Ada Lovelace",
        email: "ada@example.com",
        phone: "+1 512 555 0199",
        address: "12 Engine Row, Austin, TX 78701",
      }),
    });
    // In flight: the platform has taken the request and is holding its answer.
    await expect
      .poll(
        async () => {
          const stats = await fetch(`${serve.sandboxUrl}/sandbox/admin/stats`, {
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          });
          return ((await stats.json()) as { faults: { delayed: number } }).faults.delayed;
        },
        { timeout: 10_000 },
      )
      .toBe(1);

    const signalled = performance.now();
    serve.child.kill("SIGTERM");
    const res = await answer;
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ status: "created", leadId: expect.stringMatching(/^lead_/) });
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(performance.now() - signalled).toBeLessThan(5_000);
    // Refused from the moment it stopped.
    await expect(fetch(`${serve.gatewayUrl}/health/live`)).rejects.toThrow();
  });

  it("exits 0 on SIGTERM with an idle keep-alive connection open", async () => {
    const serve = await startServe({ LOG_LEVEL: "warn" });
    const { Agent, get } = await import("node:http");
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) =>
      get(`${serve.gatewayUrl}/health/live`, { agent }, (res) => res.resume().on("end", resolve)).on("error", reject),
    );
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    const signalled = performance.now();
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(performance.now() - signalled).toBeLessThan(5_000);
    agent.destroy();
  });

  it("off a terminal, writes JSON log lines with unique keys to stdout and the banner to stderr", async () => {
    const serve = await startServe({ LOG_LEVEL: "info" });
    await fetch(`${serve.gatewayUrl}/health/live`);
    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);

    const lines = serve.stdout().split("\n").filter(Boolean);
    // Positive control: the sandbox's own lines are among them.
    expect(lines.some((line) => line.includes('"component":"sandbox"'))).toBe(true);
    for (const line of lines) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      // A key given twice parses (the last wins) but is not valid for strict readers: count the raw keys.
      const keys = topLevelKeys(line);
      expect(new Set(keys).size, line).toBe(keys.length);
      expect(parsed.name).toBe("gateway");
    }
    expect(serve.stdout()).not.toContain("gateway listening on http");
    expect(serve.stderr()).toContain("owner console:");
  });

  it("on a terminal, writes human-readable log lines (npm start)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-serve-tty-"));
    // script(1) gives the command a pseudo-terminal, as a developer's shell would.
    const child = spawn("script", ["-qfec", `${process.execPath} ${BIN} serve`, "/dev/null"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        PORT: "0",
        SANDBOX_PORT: "0",
        DATABASE_PATH: join(dir, "gateway.db"),
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.push(child);
    let out = "";
    child.stdout?.on("data", (chunk) => {
      out += String(chunk);
    });
    await expect.poll(() => out.includes("try a native HomeQuote lead"), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => /INFO.*gateway listening/.test(out), { timeout: 10_000 }).toBe(true);
    expect(out).not.toContain('{"level":');
    child.kill("SIGKILL");
  });
});
