import { Counter, Histogram, Registry } from "prom-client";

/** Prometheus metrics of one app; each app owns its registry so two apps in one process never collide. */
export class HttpMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"method" | "route" | "status">;
  readonly duration: Histogram<"method" | "route" | "status">;

  constructor(app: string) {
    this.registry.setDefaultLabels({ app });
    this.requests = new Counter({
      name: "http_requests_total",
      help: "HTTP requests by route pattern and status",
      labelNames: ["method", "route", "status"],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP request latency by route pattern and status",
      labelNames: ["method", "route", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }
}
