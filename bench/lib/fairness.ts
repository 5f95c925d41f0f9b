/**
 * The fairness measure of `bench:drain` (docs/forwarding.md, "Fairness"), shared with the tests that drain a backlog
 * across several processes: each company's sends in windows of W, over its max-min fair share, in the windows where
 * every company still had a backlog (the first excluded: a sudden backlog's first window goes out in one clump).
 */

/** One send to the upstream: whose, and when it started (epoch ms). */
export interface Send {
  company: string;
  at: number;
}

export interface Fairness {
  /** Jain's index of each company's throughput over its fair share, averaged over the windows measured. */
  mean: number;
  min: number;
  /** Windows measured. */
  windows: number;
  /** Each measured window's index, in order. */
  indices: number[];
  /** Windows with fewer sends than `minSends` (a stall): no fairness to judge, counted apart (utilisation shows them). */
  idleWindows: number;
  /** The first company's last send: every company had a backlog until then. */
  backloggedUntil: number;
}

/** Max-min fair shares of `capacity` between demands (progressive filling). */
export function maxMinShares(demands: number[], capacity: number): number[] {
  const shares = demands.map(() => 0);
  let left = capacity;
  let open = demands.map((_, i) => i);
  while (open.length > 0 && left > 1e-9) {
    const each = left / open.length;
    const next: number[] = [];
    for (const i of open) {
      const give = Math.min(each, (demands[i] ?? 0) - (shares[i] ?? 0));
      shares[i] = (shares[i] ?? 0) + give;
      left -= give;
      if ((shares[i] ?? 0) < (demands[i] ?? 0) - 1e-9) next.push(i);
    }
    if (next.length === open.length && each <= 1e-9) break;
    open = next;
  }
  return shares;
}

/**
 * Jain's index per window of `windowMs` from the first send's window + 1 (or `from`) until the first company ran out of work (its
 * last send), each company's count divided by its fair share (`shares`, per window, in the order of `companies`).
 */
export function windowedFairness(input: {
  sends: Send[];
  companies: string[];
  shares: number[];
  windowMs: number;
  /** Windows start no earlier (epoch ms): when the whole backlog was in, if it arrived over time. */
  from?: number;
  /**
   * A window with fewer sends is a stall, or the edge of one, and is counted idle (default 1: only a window with no
   * send at all). A handful of sends cannot be shared fairly: one send among four companies scores 0.25.
   */
  minSends?: number;
}): Fairness {
  const { sends, companies, shares, windowMs: W } = input;
  const firstSend = Math.min(...sends.map((s) => s.at));
  const lastSendOf = companies.map((c) => Math.max(...sends.filter((s) => s.company === c).map((s) => s.at)));
  const allBackloggedUntil = Math.min(...lastSendOf);
  const indices: number[] = [];
  let idleWindows = 0;
  for (let start = Math.max(firstSend + W, input.from ?? 0); start + W <= allBackloggedUntil; start += W) {
    const x = companies.map((c, i) => {
      const sent = sends.filter((s) => s.company === c && s.at >= start && s.at < start + W).length;
      return sent / (shares[i] ?? 1);
    });
    const sent = sends.filter((s) => s.at >= start && s.at < start + W && companies.includes(s.company)).length;
    const sum = x.reduce((a, b) => a + b, 0);
    const squares = x.reduce((a, b) => a + b * b, 0);
    if (squares === 0 || sent < (input.minSends ?? 1)) idleWindows++;
    else indices.push((sum * sum) / (x.length * squares));
  }
  return {
    mean: indices.reduce((a, b) => a + b, 0) / Math.max(1, indices.length),
    min: indices.length > 0 ? Math.min(...indices) : Number.NaN,
    windows: indices.length,
    indices,
    idleWindows,
    backloggedUntil: allBackloggedUntil,
  };
}
