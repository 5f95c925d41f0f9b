import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionsCommand } from "../../src/cli/connections.js";
import { ownerClient, ownerClientEnv } from "../../src/cli/owner-client.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

// `partner-gateway connections …` against a running gateway's owner API (docs/connections.md; D-309).

const PRESETS = new URL("../../presets", import.meta.url).pathname;
const ANGI_KEY = "angi-cli-key-00000000000001";

let t: TestGateway;
let token: string;

beforeAll(async () => {
  t = await startTestGateway({}, { presetsDir: PRESETS });
  const company = await seedCompany(t.gateway, "CLI Hooks");
  const signIn = await postJson(`${t.url}/owner/v1/sessions`, { email: company.email, password: OWNER_PASSWORD });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(signIn)).csrfToken);
  token = String(
    (await json(await postJson(`${t.url}/owner/v1/tokens`, { name: "cli" }, { cookie, "x-csrf-token": csrf }))).token,
  );
});
afterAll(() => t.close());

async function cli(argv: string[], stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const client = ownerClient(ownerClientEnv.parse({ PARTNER_GATEWAY_URL: t.url, OWNER_TOKEN: token }));
  const code = await connectionsCommand(argv, client, {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    ...(stdin === undefined ? {} : { stdin: async () => stdin }),
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("partner-gateway connections", () => {
  let id = "";
  let hookUrl = "";

  it("creates a connection from a preset with its secrets from a file, printing the hook URL once", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "pg-cli-")), "secrets.json");
    writeFileSync(file, JSON.stringify({ apiKey: ANGI_KEY }));
    const made = await cli(["create", "--preset", "angi", "--name", "Angi", "--secrets", file]);
    expect(made.code).toBe(0);
    hookUrl = made.stdout.trim();
    expect(hookUrl).toMatch(new RegExp(`^${t.url}/hooks/hk_[A-Za-z0-9_-]{43}$`));
    id = /\((con_[^)]+)\)/.exec(made.stderr)?.[1] ?? "";
    const listed = await cli(["list"]);
    expect(listed.stdout).toContain(`${id}\tactive\tangi\tAngi`);
    // The list never shows the hook URL's token (positive control: it names the connection).
    expect(listed.stdout).not.toContain(hookUrl.split("/hooks/")[1]);
  });

  it("reads the secrets from stdin with '-', and says why the owner API refused", async () => {
    const refused = await cli(["create", "--preset", "angi", "--name", "Angi 2", "--secrets", "-"], "{}");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^secrets\.apiKey: required \(bad_request, request req_/);
    const bad = await cli(["create", "--preset", "angi", "--name", "Angi 2", "--secrets", "-"], "[1]");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/a JSON object of secret names/);
  });

  it("rotates the hook URL with an overlap, then revokes the connection", async () => {
    const rotated = await cli(["rotate", id, "--overlap-hours", "1"]);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout.trim()).not.toBe(hookUrl);
    expect(rotated.stderr).toMatch(/previous hook URL works until/);
    const revoked = await cli(["revoke", id]);
    expect(revoked).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^${id} revoked at `)) });
    expect((await cli(["list"])).stdout).toContain(`${id}\trevoked`);
  });

  it("prints its usage with exit code 2 for a command it does not know", async () => {
    for (const argv of [[], ["remove", "con_x"], ["rotate"], ["rotate", "con_x", "--overlap-hours", "soon"]]) {
      const res = await cli(argv);
      expect(res.code, argv.join(" ")).toBe(2);
      expect(res.stderr).toMatch(/^usage/);
    }
  });
});
