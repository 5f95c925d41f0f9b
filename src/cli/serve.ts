import { parseEnv } from "../config.js";
import { newApp } from "../http/app.js";
import { healthRoutes } from "../http/health.js";
import { HttpMetrics } from "../http/metrics.js";
import { listen } from "../http/server.js";
import { createLogger } from "../log.js";

export async function run(_argv: string[]): Promise<void> {
  const env = parseEnv();
  const log = createLogger({ level: env.LOG_LEVEL, pretty: env.LOG_PRETTY, name: "gateway" });
  const metrics = new HttpMetrics("gateway");
  const app = newApp({ log, metrics });
  app.route("/", healthRoutes({ metrics }));
  const server = await listen(app, { host: env.HOST, port: env.PORT });
  log.info({ url: server.url }, "gateway listening");
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
