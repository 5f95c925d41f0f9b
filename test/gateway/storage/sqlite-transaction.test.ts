import { afterEach, describe, expect, it } from "vitest";
import { type GatewayDatabase, openGatewayDb } from "../../../src/db/client.js";
import { sqliteStorage } from "../../../src/gateway/storage/transaction.js";

/** D-222: transactions across awaits on SQLite hold an async gate; calls from outside wait for it. */
describe("SQLite transactions across awaits (D-222)", () => {
  let database: GatewayDatabase | undefined;
  afterEach(() => database?.close());

  const company = (id: string) => ({ id, name: id, limits: null, createdAt: new Date(0).toISOString() });
  const open = () => {
    database = openGatewayDb(":memory:");
    return sqliteStorage(database);
  };

  it("a write from outside during an open transaction waits for it, and is not rolled back with it", async () => {
    const storage = open();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = storage.transaction(async (tx) => {
      await tx.tenants.insertCompany(company("cmp_inside"));
      await held;
      throw new Error("rolled back");
    });
    const outside = storage.tenants.insertCompany(company("cmp_outside"));
    let outsideDone = false;
    void outside.then(() => {
      outsideDone = true;
    });
    // Positive control: the transaction is open and its own write is visible inside it.
    await expect.poll(() => database?.sqlite.inTransaction).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(outsideDone).toBe(false);
    release();
    await expect(transaction).rejects.toThrow("rolled back");
    await outside;
    expect(await storage.tenants.getCompany("cmp_inside")).toBeUndefined();
    expect(await storage.tenants.getCompany("cmp_outside")).toBeDefined();
  });

  it("commits what the work wrote through tx, and rolls all of it back when the work throws", async () => {
    const storage = open();
    await storage.transaction(async (tx) => {
      await tx.tenants.insertCompany(company("cmp_a"));
      await tx.tenants.insertCompany(company("cmp_b"));
    });
    await expect(
      storage.transaction(async (tx) => {
        await tx.tenants.insertCompany(company("cmp_c"));
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    expect((await storage.tenants.companyIds()).sort()).toEqual(["cmp_a", "cmp_b"]);
    expect(database?.sqlite.inTransaction).toBe(false);
  });

  it("queues transactions one at a time; immediate mode takes the write lock at BEGIN", async () => {
    const storage = open();
    const order: string[] = [];
    const first = storage.transaction(async (tx) => {
      order.push("first begins");
      await tx.tenants.insertCompany(company("cmp_1"));
      await new Promise((resolve) => setImmediate(resolve));
      order.push("first ends");
    }, "immediate");
    const second = storage.transaction(async (tx) => {
      order.push("second begins");
      await tx.tenants.insertCompany(company("cmp_2"));
    }, "immediate");
    await Promise.all([first, second]);
    expect(order).toEqual(["first begins", "first ends", "second begins"]);
    expect((await storage.tenants.companyIds()).sort()).toEqual(["cmp_1", "cmp_2"]);
  });

  it("intake's group commit waits for an open transaction and commits on its own", async () => {
    const storage = open();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = storage.transaction(async () => {
      await held;
      throw new Error("rolled back");
    });
    await expect.poll(() => database?.sqlite.inTransaction).toBe(true);
    const now = new Date().toISOString();
    const accepted = storage.submissions.insert({
      id: "sub_1",
      companyId: "cmp_x",
      vendorKeyId: "key_1",
      credentialId: "cred_1",
      kind: "lead",
      status: "queued",
      payloadDigest: null,
      createdAt: now,
      updatedAt: now,
    });
    release();
    await expect(transaction).rejects.toThrow("rolled back");
    const [outcome] = await Promise.allSettled([accepted]);
    // Its own batch, after the rollback: resolved means committed (not lost with the transaction).
    expect(outcome?.status === "fulfilled").toBe((await storage.submissions.get("sub_1")) !== undefined);
    expect(database?.sqlite.inTransaction).toBe(false);
  });
});
