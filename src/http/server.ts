import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { nodeRoutesServer } from "./node-routes.js";

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

type FetchApp = { fetch: Parameters<typeof serve>[0]["fetch"] };

/**
 * Starts a Node HTTP server for a Hono app; port 0 picks a free port (tests). The app's Node routes (node-routes.ts),
 * if it has any, are answered ahead of its Hono routes.
 */
export function listen(app: FetchApp, options: { host: string; port: number }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const createServer = nodeRoutesServer(app);
    const serveOptions = { fetch: app.fetch, hostname: options.host, port: options.port };
    const server = serve(createServer ? { ...serveOptions, createServer } : serveOptions, (info: AddressInfo) => {
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Keep-alive sockets would hold close() open; drop them.
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      });
    });
    server.once("error", reject);
  });
}
