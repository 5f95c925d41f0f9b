import { readFile } from "node:fs/promises";
import { type Io, readStdin } from "./io.js";
import { OwnerCallError, type OwnerClient, ownerClient, ownerClientEnv } from "./owner-client.js";

const USAGE = `usage (a running gateway at PARTNER_GATEWAY_URL, an owner's token in OWNER_TOKEN):
  partner-gateway connections list
  partner-gateway connections create --preset ID --name NAME --secrets FILE [--credential ID]
                                     FILE: a JSON object of the preset's secrets ("-" for stdin)
  partner-gateway connections rotate ID [--overlap-hours N]   a new hook URL; the old one works N hours (default 24)
  partner-gateway connections revoke ID
`;

/** `partner-gateway connections …` (docs/connections.md, "Connecting a vendor"; D-309). Exit: 0, 1 refused, 2 usage. */
export async function run(argv: string[]): Promise<void> {
  const env = ownerClientEnv.safeParse(process.env);
  if (!env.success) {
    const issue = env.error.issues[0];
    process.stderr.write(`partner-gateway: ${issue?.path.join(".")}: ${issue?.message}\n`);
    process.exitCode = 78; // EX_CONFIG, as a bad setting of `serve`
    return;
  }
  process.exitCode = await connectionsCommand(argv, ownerClient(env.data), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: readStdin,
  });
}

/** The command itself, on a given client (a test's). */
export async function connectionsCommand(argv: string[], client: OwnerClient, io: Io): Promise<number> {
  const [command, ...rest] = argv;
  const { positional, flags } = parseArgs(rest);
  try {
    if (command === "list" && positional.length === 0) return await list(client, io);
    if (command === "create" && positional.length === 0 && flags.name && flags.secrets) {
      const secrets = await readSecrets(flags.secrets, io);
      const made = await client.call("post", "/connections", {
        body: {
          name: flags.name,
          secrets,
          ...(flags.preset ? { preset: flags.preset } : {}),
          ...(flags.credential ? { credentialId: flags.credential } : {}),
        },
      });
      io.stderr(`connected ${made.name} (${made.id}); give the vendor this hook URL — it is shown once:\n`);
      io.stdout(`${made.hookUrl}\n`);
      return 0;
    }
    const [id] = positional;
    if (command === "rotate" && id && positional.length === 1) {
      const hours = flags["overlap-hours"];
      const overlapHours = hours === undefined ? undefined : Number(hours);
      if (overlapHours !== undefined && !Number.isInteger(overlapHours)) return usage(io);
      const rotated = await client.call("post", "/connections/{connectionId}/rotate-hook-url", {
        params: { connectionId: id },
        body: overlapHours === undefined ? {} : { overlapHours },
      });
      const until = rotated.previousHookUrlValidUntil;
      io.stderr(
        `the previous hook URL ${until ? `works until ${until}` : "no longer works"}; the new one, shown once:\n`,
      );
      io.stdout(`${rotated.hookUrl}\n`);
      return 0;
    }
    if (command === "revoke" && id && positional.length === 1) {
      const revoked = await client.call("post", "/connections/{connectionId}/revoke", { params: { connectionId: id } });
      io.stdout(`${revoked.id} ${revoked.status} at ${revoked.revokedAt ?? "—"}\n`);
      return 0;
    }
  } catch (error) {
    if (!(error instanceof OwnerCallError || error instanceof SecretsFileError)) throw error;
    io.stderr(`${error.message}\n`);
    return 1;
  }
  return usage(io);
}

async function list(client: OwnerClient, io: Io): Promise<number> {
  const { connections } = await client.call("get", "/connections");
  for (const c of connections) {
    const refused = c.proofFailures
      ? `, ${c.proofFailures} refused (last ${c.lastProofFailureAt}: ${c.lastProofFailure})`
      : "";
    io.stdout(`${c.id}\t${c.status}\t${c.preset ?? "own"}\t${c.name}${refused}\n`);
  }
  if (connections.length === 0) io.stderr("no connections\n");
  return 0;
}

function usage(io: Io): number {
  io.stderr(USAGE);
  return 2;
}

/** `--name value` pairs and the rest, in order. */
function parseArgs(args: string[]): { positional: string[]; flags: Record<string, string | undefined> } {
  const positional: string[] = [];
  const flags: Record<string, string | undefined> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith("--")) flags[arg.slice(2)] = args[++i];
    else positional.push(arg);
  }
  return { positional, flags };
}

class SecretsFileError extends Error {}

/** The vendor's secrets from a file or stdin, never from the command line (a process list and a shell history show it). */
async function readSecrets(file: string, io: Io): Promise<Record<string, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(file === "-" && io.stdin ? await io.stdin() : await readFile(file, "utf8"));
  } catch (error) {
    throw new SecretsFileError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const valid =
    typeof parsed === "object" &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((value) => typeof value === "string");
  if (!valid) throw new SecretsFileError(`${file}: a JSON object of secret names to their values (strings)`);
  return parsed as Record<string, string>;
}
