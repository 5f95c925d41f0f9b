import { request } from "node:http";

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request over Node's own client, for what fetch will not send: a declared length the body never reaches, a chunked
 * body, a body on any method. `body` is written in the given chunks; with `declaredLength` and fewer bytes, the request
 * is left open, so an answer proves the server did not wait for the body.
 */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    chunks?: (string | Uint8Array)[];
    declaredLength?: number;
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.declaredLength !== undefined) headers["content-length"] = String(options.declaredLength);
    const req = request(url, { method: options.method ?? "POST", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        req.destroy();
      });
    });
    // The server may close while the client is still writing (that is what a refused body looks like).
    req.on("error", (error) => (req.writableEnded ? undefined : reject(error)));
    const chunks = options.chunks ?? [];
    const write = async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return;
        if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
      }
      const sent = chunks.reduce((n, c) => n + (typeof c === "string" ? Buffer.byteLength(c) : c.byteLength), 0);
      if (options.declaredLength === undefined || sent >= options.declaredLength) req.end();
    };
    write().catch(reject);
  });
}
