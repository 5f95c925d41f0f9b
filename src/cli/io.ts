/** Where a one-shot command writes, and reads a "-" file from: the process's streams, or a test's. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads a file argument given as "-". */
  stdin?: () => Promise<string>;
}

/** Standard input, whole. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}
