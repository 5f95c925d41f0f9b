import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config.js";
import { createGateway } from "../../src/gateway/create-gateway.js";
import { createLogger } from "../../src/log.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";

const available = await postgresAvailable();

/** D-256: on PostgreSQL one process per database runs the embedded forwarding driver; D-258: MASTER_KEY is required. */
describe.skipIf(!available)("the embedded forwarder on PostgreSQL (D-256, D-258)", () => {
  const database = usePostgresDatabase();
  const open = (masterKey: string | undefined = randomBytes(32).toString("hex")) =>
    createGateway({
      databasePath: "unused.db",
      databaseUrl: database.url,
      ...(masterKey ? { masterKey } : {}),
      log: createLogger({ level: "silent" }),
      forwarding: { upstreamUrl: "http://127.0.0.1:9" },
    });

  it("refuses a second embedded forwarder on the same database, and starts one once the first has closed", async () => {
    const first = await open();
    await expect(open()).rejects.toThrow(ConfigError);
    await expect(open()).rejects.toThrow(/REDIS_URL/);
    // Positive control: the refusal was the first one's claim, released by its close.
    await first.close();
    const second = await open();
    expect(await second.ctx.ping()).toBeUndefined();
    await second.close();
  });

  it("refuses to start without MASTER_KEY, whatever the mode", async () => {
    await expect(open("")).rejects.toThrow(/MASTER_KEY/);
  });
});
