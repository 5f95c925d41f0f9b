import { connect, createServer, type Server, type Socket } from "node:net";

/** Where the proxy forwards: the machine's PostgreSQL or Redis. */
export interface FaultProxyTarget {
  host: string;
  port: number;
}

/**
 * - `open`: bytes flow both ways.
 * - `cut`: the server is gone (a restart, a crash): open connections were reset, new ones are refused.
 * - `stalled`: the network drops everything (a partition): connections stay open and silent, new ones are accepted
 *   and hang, so only the clients' own timeouts end them.
 */
export type FaultState = "open" | "cut" | "stalled" | "closed";

export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  readonly state: FaultState;
  /** `through` (postgres://…, redis://…) with its host and port replaced by the proxy's. */
  url(through: string): string;
  /**
   * The server goes away: every open connection is reset (RST, both sides: the client reads ECONNRESET, the server
   * sees its client vanish) and the proxy stops listening, so a new connection is refused (ECONNREFUSED) — what a
   * client sees when the database or Redis restarts or crashes. In effect when the call returns; resolves once the
   * listener is closed.
   */
  cut(): Promise<void>;
  /**
   * The network stops carrying anything: open connections are held silent (their bytes wait in the buffers), new ones
   * are accepted and hang. `restore()` lets everything through again, as a healed partition does.
   */
  stall(): void;
  /** Accepts and forwards again (on the same port); stalled connections resume. */
  restore(): Promise<void>;
  /** `cut()` now, `restore()` after `ms`: resolves once restored. The fault's duration is the proxy's, not a test's. */
  cutFor(ms: number): Promise<void>;
  /** Connections open through the proxy now (held ones included). */
  connections(): number;
  /** Connections accepted since the start, refused ones not counted: a client that reconnected shows here. */
  accepted(): number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  /** Absent while a connection accepted during a stall waits for the network to come back. */
  upstream?: Socket;
}

/**
 * A TCP proxy a test puts between the gateway and PostgreSQL or Redis, to make outages happen for real: the clients
 * (node-postgres, ioredis, BullMQ) meet the errors they meet in production, not a stub's idea of them.
 */
export async function startFaultProxy(options: { target: FaultProxyTarget; host?: string }): Promise<FaultProxy> {
  const { target } = options;
  const host = options.host ?? "127.0.0.1";
  const pairs = new Set<Pair>();
  let state: FaultState = "open";
  let accepted = 0;
  let server: Server | undefined;
  let port = 0;
  let restoreTimer: NodeJS.Timeout | undefined;

  const forward = (pair: Pair) => {
    const upstream = connect(target.port, target.host);
    pair.upstream = upstream;
    pipe(pair);
    // A side that ends or fails takes the other with it, as a TCP connection through a real network would.
    upstream.on("error", () => pair.client.destroy());
    upstream.on("close", () => {
      pair.client.destroy();
      pairs.delete(pair);
    });
  };

  const accept = (client: Socket) => {
    accepted++;
    const pair: Pair = { client };
    pairs.add(pair);
    client.on("error", () => pair.upstream?.destroy());
    client.on("close", () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (state === "stalled") client.pause();
    else forward(pair);
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer(accept);
      next.once("error", (error: NodeJS.ErrnoException) => {
        reject(
          error.code === "EADDRINUSE"
            ? new Error(`fault proxy: port ${port} was taken while the proxy was cut; the test cannot restore it`)
            : error,
        );
      });
      next.listen(port, host, () => {
        const address = next.address();
        if (typeof address === "object" && address) port = address.port;
        server = next;
        resolve();
      });
    });

  const stopListening = () => {
    const closing = server;
    server = undefined;
    if (!closing) return Promise.resolve();
    // close() stops accepting at once; its callback waits for the connections, which are reset below.
    return new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  const resetAll = () => {
    for (const pair of pairs) {
      pair.client.resetAndDestroy();
      pair.upstream?.resetAndDestroy();
    }
    pairs.clear();
  };

  await listen();

  const proxy: FaultProxy = {
    host,
    get port() {
      return port;
    },
    get state() {
      return state;
    },
    url(through) {
      const url = new URL(through);
      url.hostname = host;
      url.port = String(port);
      return url.toString();
    },
    cut() {
      if (state === "closed") return Promise.resolve();
      state = "cut";
      const closed = stopListening();
      resetAll();
      return closed;
    },
    stall() {
      if (state !== "open") throw new Error(`fault proxy: cannot stall while ${state}`);
      state = "stalled";
      for (const pair of pairs) unpipe(pair);
    },
    async restore() {
      clearTimeout(restoreTimer);
      if (state === "cut") await listen();
      else if (state === "stalled") {
        for (const pair of pairs) {
          if (pair.upstream) pipe(pair);
          else forward(pair);
          pair.client.resume();
        }
      } else return;
      state = "open";
    },
    cutFor(ms) {
      const cut = proxy.cut();
      return new Promise<void>((resolve, reject) => {
        restoreTimer = setTimeout(() => {
          if (state !== "cut") return resolve();
          cut.then(() => proxy.restore()).then(resolve, reject);
        }, ms);
      });
    },
    connections: () => pairs.size,
    accepted: () => accepted,
    async close() {
      clearTimeout(restoreTimer);
      state = "closed";
      const closed = stopListening();
      resetAll();
      await closed;
    },
  };
  return proxy;
}

function pipe({ client, upstream }: Pair): void {
  if (!upstream) return;
  client.pipe(upstream);
  upstream.pipe(client);
}

/** Held, not dropped: what each side sent meanwhile waits in its buffers and flows once piped again. */
function unpipe({ client, upstream }: Pair): void {
  client.unpipe();
  client.pause();
  upstream?.unpipe();
  upstream?.pause();
}
