import { Counter, type Registry } from "prom-client";
import type { ProfileEngine } from "./engine.js";

/**
 * The profile engine's figures in /metrics, read from the engine when scraped. A divergence of the compiled path is a
 * bug in the port of JSONata (docs/profiles.md, "Compiled expressions"): the operator should hear of every one.
 */
export function registerEngineMetrics(registry: Registry, engine: ProfileEngine): void {
  let counted = 0;
  new Counter({
    name: "profile_compiled_divergences_total",
    help: "Evaluations whose compiled mapping path disagreed with JSONata's interpreter (the version is then interpreted)",
    registers: [registry],
    collect() {
      const total = engine.stats().divergences;
      if (total > counted) this.inc(total - counted);
      counted = total;
    },
  });
}
