import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { NodeRoutes } from "./node-routes.js";

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  port: number;
  /**
   * Stops accepting connections, closes idle keep-alive connections at once, lets requests in flight finish (their
   * connections close once the answer is written), and cuts whatever is still open after `graceMs`. Always settles.
   */
  close(graceMs?: number): Promise<void>;
}

type FetchApp = { fetch: Parameters<typeof serve>[0]["fetch"]; nodeRoutes?: NodeRoutes };

/** How long requests in flight get to finish when the server closes. */
export const DEFAULT_CLOSE_GRACE_MS = 5_000;
/** How often a closing server looks for connections that became idle once their answer was written. */
const IDLE_SWEEP_MS = 25;

/**
 * Starts a Node HTTP server for a Hono app; port 0 picks a free port (tests). The app's Node routes (node-routes.ts),
 * if it has any, are answered ahead of its Hono routes.
 */
export function listen(app: FetchApp, options: { host: string; port: number }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const createServer = app.nodeRoutes?.server();
    const serveOptions = { fetch: app.fetch, hostname: options.host, port: options.port };
    const server = serve(createServer ? { ...serveOptions, createServer } : serveOptions, (info: AddressInfo) => {
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: (graceMs = DEFAULT_CLOSE_GRACE_MS) => {
          closing ??= closeGracefully(server as Server, graceMs);
          return closing;
        },
      });
    });
    server.once("error", reject);
  });
}

/**
 * A keep-alive connection would hold `server.close()` open for as long as its client keeps it, so idle connections are
 * closed at once and swept again until the last in-flight answer is written. What is still running after the grace period
 * is cut.
 */
function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((done) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      done();
    });
    server.closeIdleConnections();
  });
}
