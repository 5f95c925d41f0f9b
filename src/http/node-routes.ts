import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AppOptions } from "./app-options.js";
import { errorAnswer } from "./errors.js";
import { nodeHeader } from "./node-headers.js";
import { requestIdFrom } from "./request-id.js";
import type { RequestLog } from "./request-line.js";

/**
 * A route answered from Node's own request and response, ahead of Hono: for the few paths whose volume makes the
 * objects Hono and @hono/node-server build for every request (web Request, context, middleware chain, Response) cost
 * more than the work itself. The app's contract still holds: request id, one log line, metrics, the error body.
 */
export interface NodeRoute {
  /** The method, or `*` for any. */
  method: string;
  /** The exact path (a query string is allowed); also the route's name in logs and metrics. */
  path: string;
  /** Every path that starts with this one (`/hooks/`) instead; `path` then names the route in logs and metrics. */
  prefix?: string;
  /** The answer to one request; `request.key` takes the caller's key prefix for the log line. Throws as a handler does. */
  handle(incoming: IncomingMessage, request: { key?: string }): Promise<NodeAnswer>;
}

export interface NodeAnswer {
  status: number;
  /** Sent as JSON, unless `text` is given. */
  body?: unknown;
  /** Sent as it is, with its content type (a vendor's own answer: a text, an XML document). */
  text?: { body: string; contentType: string };
  headers?: Record<string, string>;
}

/**
 * An app's Node routes (every app made by newApp() has one, as `app.nodeRoutes`): listen() serves them ahead of the
 * app's Hono routes, answered with the app's options.
 */
export class NodeRoutes {
  readonly #options: AppOptions;
  readonly #requestLog: RequestLog;
  readonly #routes = new Map<string, NodeRoute>();
  readonly #prefixed: NodeRoute[] = [];

  constructor(options: AppOptions, requestLog: RequestLog) {
    this.#options = options;
    this.#requestLog = requestLog;
  }

  /** Adds a route; listen() serves it ahead of the app's Hono routes. */
  add(route: NodeRoute): void {
    if (route.prefix !== undefined) this.#prefixed.push(route);
    else this.#routes.set(`${route.method} ${route.path}`, route);
  }

  /**
   * The `createServer` for @hono/node-server's serve(): a server whose listener answers these routes itself and hands
   * every other request to Hono's. Undefined when there are none.
   */
  server(): typeof createServer | undefined {
    if (this.#routes.size === 0 && this.#prefixed.length === 0) return undefined;
    const routes = this.#routes;
    const prefixed = this.#prefixed;
    const options = this.#options;
    const requestLog = this.#requestLog;
    return ((serverOptions: object, hono: RequestListener) =>
      createServer(serverOptions, (incoming, outgoing) => {
        const url = incoming.url ?? "/";
        const query = url.indexOf("?");
        const path = query === -1 ? url : url.slice(0, query);
        const route =
          routes.get(`${incoming.method} ${path}`) ??
          prefixed.find((r) => path.startsWith(r.prefix ?? "") && (r.method === "*" || r.method === incoming.method));
        if (route) respond(options, requestLog, route, path, incoming, outgoing);
        else hono(incoming, outgoing);
      })) as typeof createServer;
  }
}

/** What one request's answer and log line need to know of it. */
interface Exchange {
  options: AppOptions;
  requestLog: RequestLog;
  route: NodeRoute;
  path: string;
  outgoing: ServerResponse;
  started: number;
  requestId: string;
  /** The caller's key prefix, once the route has told it. */
  key?: string;
  method: string | undefined;
}

function respond(
  options: AppOptions,
  requestLog: RequestLog,
  route: NodeRoute,
  path: string,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): void {
  const started = performance.now();
  const requestId = requestIdFrom(nodeHeader(incoming, "x-request-id"));
  const exchange: Exchange = {
    options,
    requestLog,
    route,
    path,
    outgoing,
    started,
    requestId,
    method: incoming.method,
  };
  route
    .handle(incoming, exchange)
    .then(
      (answer) => send(exchange, answer),
      (error: unknown) => {
        const answer = errorAnswer(error);
        send(exchange, answer, answer.status >= 500 ? error : undefined);
      },
    )
    .catch((error: unknown) => {
      // The answer itself could not be written: nothing more can be said on this connection.
      options.log.error({ requestId, err: error }, "response failed");
      outgoing.destroy();
    });
}

/** Writes the answer (JSON, or its own text) with the app's headers, then the request's log line. */
function send(exchange: Exchange, answer: NodeAnswer, failure?: unknown): void {
  const { options, requestLog, route, path, outgoing, started, requestId, key } = exchange;
  const body = answer.text ? answer.text.body : JSON.stringify(answer.body);
  outgoing.writeHead(answer.status, {
    "x-request-id": requestId,
    ...options.responseHeaders,
    ...answer.headers,
    "content-type": answer.text ? answer.text.contentType : "application/json",
    "content-length": Buffer.byteLength(body),
  });
  outgoing.end(body);
  requestLog.write({
    requestId,
    method: route.method === "*" ? (exchange.method ?? "*") : route.method,
    path,
    route: route.path,
    started,
    key,
    status: answer.status,
    failure,
  });
}
