import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  COMPANY_LOCK_CLASS,
  CREDENTIAL_LOCK_CLASS,
  IMMEDIATE_LOCK_KEY,
  postgresStorage,
} from "../../../src/gateway/storage/postgres.js";
import type { Stores, TransactionScope } from "../../../src/gateway/storage/transaction.js";
import { usePostgresDatabase } from "../../helpers/postgres.js";
import { BACKENDS, id, newCompany, newCredential, type Opened, pgAvailable, vendorKeyRow } from "./backends.js";

/**
 * `ctx.transaction` across records' stores (docs/decisions.md, D-222, D-223, D-249): what the work does through `tx`
 * commits together or not at all, on SQLite and PostgreSQL; on PostgreSQL `immediate` transactions of every process
 * run one at a time (SQLite's BEGIN IMMEDIATE blocks its whole process while it waits, so two "processes" in one test
 * process cannot show it there).
 */
describe.each(BACKENDS)("transactions across stores on $name", (backend) => {
  describe.skipIf(backend.skip)("commit and rollback", () => {
    const open = backend.use();
    let gateway: Opened;
    let other: Opened;
    beforeAll(() => {
      gateway = open();
      other = open();
    });
    afterAll(async () => {
      await gateway?.close();
      await other?.close();
    });

    /** A company, its credential, a vendor key and a profile: four records' stores in one piece of work. */
    async function tenantSetup(tx: Stores) {
      const company = await newCompany(tx);
      const credentialId = await newCredential(tx, company.id);
      const key = vendorKeyRow(company.id, credentialId);
      await tx.vendorKeys.insert(key);
      const profileId = id("prof");
      await tx.profiles.insertProfile({
        id: profileId,
        companyId: company.id,
        name: "leads",
        kind: "lead",
        description: null,
        createdAt: "2026-01-01T00:00:00.000Z",
      });
      return { companyId: company.id, credentialId, keyId: key.id, profileId };
    }

    async function visible(stores: Stores, made: Awaited<ReturnType<typeof tenantSetup>>) {
      return {
        company: (await stores.tenants.getCompany(made.companyId)) !== undefined,
        credential: (await stores.credentials.get(made.credentialId)) !== undefined,
        key: (await stores.vendorKeys.get(made.keyId)) !== undefined,
        profile: (await stores.profiles.getProfileOfCompany(made.profileId, made.companyId)) !== undefined,
      };
    }

    const ALL = { company: true, credential: true, key: true, profile: true };
    const NONE = { company: false, credential: false, key: false, profile: false };

    it("what the work wrote through tx commits together, seen by another process afterwards", async () => {
      const made = await gateway.transaction(async (tx) => {
        const inside = await tenantSetup(tx);
        // Positive control: the transaction sees its own writes.
        expect(await visible(tx, inside)).toEqual(ALL);
        return inside;
      });
      expect(await visible(other, made)).toEqual(ALL);
      expect(await visible(gateway, made)).toEqual(ALL);
    });

    it("a throw rolls every store's writes back, and the error reaches the caller", async () => {
      let made: Awaited<ReturnType<typeof tenantSetup>> | undefined;
      await expect(
        gateway.transaction(async (tx) => {
          made = await tenantSetup(tx);
          expect(await visible(tx, made)).toEqual(ALL);
          throw new Error("abandoned");
        }),
      ).rejects.toThrow("abandoned");
      if (!made) throw new Error("the work ran");
      expect(await visible(other, made)).toEqual(NONE);
      expect(await visible(gateway, made)).toEqual(NONE);
    });

    it("a failing statement rolls the earlier ones back; the next transaction runs", async () => {
      const company = await newCompany(gateway);
      let credentialId = "";
      await expect(
        gateway.transaction(async (tx) => {
          credentialId = await newCredential(tx, company.id);
          // A key bound to a credential that does not exist: a foreign key violation.
          await tx.vendorKeys.insert(vendorKeyRow(company.id, "cred_none"));
        }),
      ).rejects.toThrow();
      expect(await gateway.credentials.get(credentialId)).toBeUndefined();
      const made = await gateway.transaction(tenantSetup, "immediate");
      expect(await visible(other, made)).toEqual(ALL);
    });
  });
});

describe.skipIf(!pgAvailable)("immediate transactions on PostgreSQL (D-249)", () => {
  const database = usePostgresDatabase();
  const pools: pg.Pool[] = [];
  let first: ReturnType<typeof postgresStorage>;
  let second: ReturnType<typeof postgresStorage>;
  /** Reads pg_locks from outside both "processes". */
  let observer: pg.Pool;
  beforeAll(() => {
    const pool = () => {
      // Four connections: two immediate transactions of a process may hold one each at once (half the pool, D-273).
      const opened = new pg.Pool({ connectionString: database.url, max: 4 });
      opened.on("error", () => undefined);
      pools.push(opened);
      return opened;
    };
    first = postgresStorage(pool());
    second = postgresStorage(pool());
    observer = pool();
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await Promise.all(pools.map((p) => p.end()));
  });

  /**
   * Of this test's database only: pg_locks is the whole server's, where other suites' gateways running beside this one
   * take the same lock in databases of their own.
   */
  const THIS_DATABASE = "database = (SELECT oid FROM pg_database WHERE datname = current_database())";

  /** Transactions waiting for the immediate lock, seen from the server. */
  async function waitingForImmediateLock(): Promise<number> {
    const { rows } = await observer.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND ${THIS_DATABASE}
          AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
      [IMMEDIATE_LOCK_KEY],
    );
    return rows[0]?.waiting ?? 0;
  }

  /** Transactions waiting for a company's (or a credential's) immediate lock (D-273), seen from the server. */
  async function waitingForCompanyLock(lockClass = COMPANY_LOCK_CLASS): Promise<number> {
    const { rows } = await observer.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND ${THIS_DATABASE} AND objsubid = 2 AND classid = $1::oid`,
      [lockClass],
    );
    return rows[0]?.waiting ?? 0;
  }

  /** A read-then-write of a credential's version in one transaction, as a settle reads before it writes. */
  async function bumpVersion(
    stores: ReturnType<typeof postgresStorage>,
    credentialId: string,
    mode: "deferred" | "immediate",
    between: () => Promise<void>,
    scope?: TransactionScope,
  ): Promise<number> {
    return stores.transaction(
      async (tx) => {
        const read = (await tx.credentials.get(credentialId))?.version ?? 0;
        await between();
        await tx.credentials.update(credentialId, { version: read + 1 });
        return read;
      },
      mode,
      scope,
    );
  }

  /**
   * An immediate read-then-write of `scope` left open once it has read (it holds its locks): `done` is its result once
   * `release()` lets it write and commit.
   */
  async function heldOpen(
    stores: ReturnType<typeof postgresStorage>,
    credentialId: string,
    scope: TransactionScope,
  ): Promise<{ done: Promise<number>; release: () => void }> {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let read = false;
    const done = bumpVersion(
      stores,
      credentialId,
      "immediate",
      async () => {
        read = true;
        await held;
      },
      scope,
    );
    await vi.waitFor(() => expect(read).toBe(true));
    return { done, release };
  }

  /** Waits until `count` (a server-side count of waiting transactions) reads 1. */
  const untilOneWaits = (count: () => Promise<number>) =>
    vi.waitFor(async () => expect(await count()).toBe(1), { timeout: 5_000, interval: 20 });

  it("two read-then-write transactions from two pools run one after the other: no update is lost", async () => {
    const company = await newCompany(first);
    const credentialId = await newCredential(first, company.id);
    let firstRead = false;
    const one = bumpVersion(first, credentialId, "immediate", async () => {
      firstRead = true;
      // The second process's transaction is blocked on the lock itself, not merely not yet started.
      await vi.waitFor(async () => expect(await waitingForImmediateLock()).toBe(1), { timeout: 5_000, interval: 20 });
    });
    await vi.waitFor(() => expect(firstRead).toBe(true));
    const two = bumpVersion(second, credentialId, "immediate", async () => undefined);
    expect(await Promise.all([one, two])).toEqual([1, 2]);
    expect((await first.credentials.get(credentialId))?.version).toBe(3);
    expect(await waitingForImmediateLock()).toBe(0);
  });

  it("control: the same two transactions deferred both read the same version, and one update is lost", async () => {
    const company = await newCompany(first);
    const credentialId = await newCredential(first, company.id);
    let secondRead = false;
    const one = bumpVersion(first, credentialId, "deferred", async () => {
      await vi.waitFor(() => expect(secondRead).toBe(true), { timeout: 5_000, interval: 10 });
    });
    const two = bumpVersion(second, credentialId, "deferred", async () => {
      secondRead = true;
      // Writes once the first committed: under READ COMMITTED it overwrites what the first wrote.
      await one;
    });
    expect(await Promise.all([one, two])).toEqual([1, 1]);
    expect((await first.credentials.get(credentialId))?.version).toBe(2);
  });

  it("D-273: one company's immediate transactions run one at a time across processes; another company's beside them", async () => {
    const acme = await newCompany(first);
    const acmeCredential = await newCredential(first, acme.id);
    const globex = await newCompany(first);
    const globexCredential = await newCredential(first, globex.id);
    const one = await heldOpen(first, acmeCredential, { companyId: acme.id });
    // Another company's read-then-write, from the other process, commits while Acme's transaction is open.
    expect(
      await bumpVersion(second, globexCredential, "immediate", async () => undefined, { companyId: globex.id }),
    ).toBe(1);
    // The same company's, from the other process, waits on Acme's lock until that commits: no update lost.
    const two = bumpVersion(second, acmeCredential, "immediate", async () => undefined, { companyId: acme.id });
    await untilOneWaits(waitingForCompanyLock);
    one.release();
    expect(await Promise.all([one.done, two])).toEqual([1, 2]);
    expect((await first.credentials.get(acmeCredential))?.version).toBe(3);
    expect(await waitingForCompanyLock()).toBe(0);
  });

  it("D-273: one credential's outcomes run one at a time; another credential's beside them; its company's waits", async () => {
    const acme = await newCompany(first);
    const general = await newCredential(first, acme.id);
    const other = await newCredential(first, acme.id);
    const one = await heldOpen(first, general, { companyId: acme.id, credentialId: general });
    // The company's other credential, from the other process, commits while the first outcome is open.
    expect(
      await bumpVersion(second, other, "immediate", async () => undefined, { companyId: acme.id, credentialId: other }),
    ).toBe(1);
    // The same credential's waits on its lock; a transaction of the whole company waits too (it holds the company's
    // key exclusively, the outcome holds it shared).
    const two = bumpVersion(second, general, "immediate", async () => undefined, {
      companyId: acme.id,
      credentialId: general,
    });
    await untilOneWaits(() => waitingForCompanyLock(CREDENTIAL_LOCK_CLASS));
    const company = bumpVersion(first, general, "immediate", async () => undefined, { companyId: acme.id });
    await untilOneWaits(waitingForCompanyLock);
    one.release();
    expect((await Promise.all([one.done, two, company])).sort()).toEqual([1, 2, 3]);
    expect((await first.credentials.get(general))?.version).toBe(4);
  });

  it("D-273: an immediate transaction for the whole database waits for a company's, and a company's for it", async () => {
    const acme = await newCompany(first);
    const credentialId = await newCredential(first, acme.id);
    const company = await heldOpen(first, credentialId, { companyId: acme.id });
    let wholeRead = false;
    const whole = bumpVersion(second, credentialId, "immediate", async () => {
      wholeRead = true;
    });
    await untilOneWaits(waitingForImmediateLock);
    expect(wholeRead).toBe(false);
    company.release();
    expect(await Promise.all([company.done, whole])).toEqual([1, 2]);
    expect(wholeRead).toBe(true);
  });

  it("the lock ends with its transaction, rolled back or committed", async () => {
    await expect(
      first.transaction(async () => {
        throw new Error("abandoned");
      }, "immediate"),
    ).rejects.toThrow("abandoned");
    // Another process takes it at once after the rollback, and this one again after that commit.
    await second.transaction(async () => undefined, "immediate");
    await first.transaction(async () => undefined, "immediate");
    expect(await waitingForImmediateLock()).toBe(0);
    const { rows } = await observer.query<{ held: number }>(
      `SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND granted AND ${THIS_DATABASE}`,
    );
    expect(rows[0]?.held).toBe(0);
  });

  it("a transaction's client goes back to the pool: more transactions than connections run in turn", async () => {
    const company = await newCompany(first);
    const credentialId = await newCredential(first, company.id);
    const runs = Array.from({ length: 12 }, () => bumpVersion(first, credentialId, "immediate", async () => undefined));
    expect((await Promise.all(runs)).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect((await first.credentials.get(credentialId))?.version).toBe(13);
  });

  it("a burst of immediate transactions over the pool's size, each also reading on the pool, all commit", async () => {
    // A pool of 3 that gives up waiting for a connection after 3 s, as the gateway's does after its connect timeout.
    const pool = new pg.Pool({ connectionString: database.url, max: 3, connectionTimeoutMillis: 3_000 });
    pool.on("error", () => undefined);
    const stores = postgresStorage(pool);
    try {
      const company = await newCompany(stores);
      const credentialId = await newCredential(stores, company.id);
      // The holder of the lock reads on the pool too, as a cache fill does: were the others to take a connection each
      // before the lock, it would wait for a fourth until the pool gave up on it (D-249).
      const runs = Array.from({ length: 6 }, () =>
        bumpVersion(stores, credentialId, "immediate", async () => {
          await stores.credentials.get(credentialId);
        }),
      );
      const outcomes = await Promise.allSettled(runs);
      expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
      expect((await stores.credentials.get(credentialId))?.version).toBe(7);
    } finally {
      await stores.close();
      await pool.end();
    }
  });
});
