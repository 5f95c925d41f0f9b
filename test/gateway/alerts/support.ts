import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One e-mail as the SMTP server received it: the envelope and the raw message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps every message it is given: where alert e-mail
 * is read back from. Plain SMTP, no authentication: the gateway's SMTP_URL is `smtp://127.0.0.1:<port>`.
 */
export async function startSmtpServer() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** A header of a raw message (unfolded), or undefined. */
    header(mail: ReceivedMail, name: string): string | undefined {
      const head = mail.raw.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, " ") ?? "";
      const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
      return line?.slice(name.length + 1).trim();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One request an HTTP endpoint received. */
export interface Posted {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
}

/**
 * The company's operational endpoint, its Slack and Teams incoming webhooks, and a vendor's webhook endpoint, on one
 * local HTTP server: every request kept by path. `/failing` answers 500 (a vendor endpoint that is down).
 */
export async function startEndpoints() {
  const posted: Posted[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "/";
      posted.push({ path, headers: req.headers, raw, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} });
      if (path.startsWith("/failing")) res.writeHead(500).end("down");
      else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posted,
    at: (path: string) => posted.filter((p) => p.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
