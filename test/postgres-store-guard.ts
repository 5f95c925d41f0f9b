import { vi } from "vitest";
import type * as OpenStorage from "../src/gateway/storage/open-storage.js";

/**
 * The PostgreSQL projects' setup file (vitest.config.ts). A suite in ON_BOTH_STORES runs there to test the gateway on
 * PostgreSQL: a gateway it opened on a SQLite file instead would pass there while testing nothing new (D-259). So
 * opening the gateway's storage without a database URL fails the test; fixtures get one from `testStorage`
 * (test/helpers/test-store.ts), and a case about SQLite alone says so with `skipIf(TEST_STORE === "postgres")`.
 */
vi.mock("../src/gateway/storage/open-storage.js", async (importOriginal) => {
  const actual = await importOriginal<typeof OpenStorage>();
  const openStorage: typeof actual.openStorage = (location, log) => {
    if (location.databaseUrl === undefined) {
      throw new Error(
        `TEST_STORE=postgres, yet a gateway opened SQLite at ${location.databasePath}: open it through testStorage`,
      );
    }
    return actual.openStorage(location, log);
  };
  return { ...actual, openStorage };
});
