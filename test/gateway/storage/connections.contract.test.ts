import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectionRow } from "../../../src/gateway/storage/connections/index.js";
import type { Stores } from "../../../src/gateway/storage/transaction.js";
import { BACKENDS, id, newCompany, newCredential, type Opened, vendorKeyRow } from "./backends.js";

/**
 * The hook connections store's contract (docs/decisions.md, D-247, D-275): the hook route's cached lookup by token
 * digest (current or previous), any process's change seen within a second, and the owner API's reads and writes, the
 * same on SQLite and PostgreSQL.
 */
describe.each(BACKENDS)("connections store on $name", (backend) => {
  describe.skipIf(backend.skip)("contract", () => {
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

    async function newConnection(stores: Stores = gateway, change: Partial<ConnectionRow> = {}) {
      const company = await newCompany(stores);
      const credentialId = await newCredential(stores, company.id);
      const key = vendorKeyRow(company.id, credentialId);
      await stores.vendorKeys.insert(key);
      const row: ConnectionRow = {
        id: id("con"),
        companyId: company.id,
        vendorKeyId: key.id,
        name: "Meta",
        preset: "meta-lead-ads",
        settings: null,
        profileKind: "lead",
        sealedSecrets: "v1.iv.tag.ciphertext",
        vendorApiBase: null,
        tokenDigest: id("digest"),
        previousTokenDigest: null,
        previousValidUntil: null,
        proofFailures: 0,
        lastProofFailureAt: null,
        lastProofFailure: null,
        createdAt: "2026-01-01T00:00:00.000Z",
        revokedAt: null,
        ...change,
      };
      await stores.connections.insert(row);
      return row;
    }

    it("finds a connection by its token's digest, then from the cache synchronously; an unknown one is not found", async () => {
      const connection = await newConnection();
      expect(await gateway.connections.findByToken(connection.tokenDigest)).toEqual(connection);
      expect(await gateway.connections.findByToken("unknown")).toBeUndefined();
      await expect
        .poll(() => {
          const found = gateway.connections.findByToken(connection.tokenDigest);
          return found instanceof Promise ? "promise" : found?.id;
        })
        .toBe(connection.id);
    });

    it("finds it by the previous token during a rotation's overlap", async () => {
      const connection = await newConnection();
      await gateway.connections.update(connection.id, {
        tokenDigest: id("digest"),
        previousTokenDigest: connection.tokenDigest,
        previousValidUntil: "2026-01-02T00:00:00.000Z",
      });
      expect((await gateway.connections.findByToken(connection.tokenDigest))?.id).toBe(connection.id);
    });

    it("sees another process's revocation within a second (cache emptied by the table's change)", async () => {
      const connection = await newConnection();
      expect((await gateway.connections.findByToken(connection.tokenDigest))?.revokedAt).toBeNull();
      await other.connections.update(connection.id, { revokedAt: "2026-01-03T00:00:00.000Z" });
      await expect
        .poll(async () => (await gateway.connections.findByToken(connection.tokenDigest))?.revokedAt, {
          timeout: 2_000,
        })
        .toBe("2026-01-03T00:00:00.000Z");
    });

    it("keeps a company's connections apart from another's, in the order made", async () => {
      const first = await newConnection();
      const stranger = await newConnection();
      expect(await gateway.connections.getOfCompany(first.id, stranger.companyId)).toBeUndefined();
      expect(await gateway.connections.getOfCompany(first.id, first.companyId)).toEqual(first);
      expect((await gateway.connections.listOfCompany(first.companyId)).map((c) => c.id)).toEqual([first.id]);
      expect((await gateway.connections.ofVendorKey(stranger.vendorKeyId))?.id).toBe(stranger.id);
    });

    it("counts refused proofs and keeps the last one's time and reason", async () => {
      const connection = await newConnection();
      await gateway.connections.addProofFailures(connection.id, 3, "2026-01-04T00:00:00.000Z", "proof_mismatch");
      await gateway.connections.addProofFailures(connection.id, 2, "2026-01-05T00:00:00.000Z", "proof_stale");
      expect(await gateway.connections.get(connection.id)).toMatchObject({
        proofFailures: 5,
        lastProofFailureAt: "2026-01-05T00:00:00.000Z",
        lastProofFailure: "proof_stale",
      });
    });

    it("a change inside a transaction holds in the cache once committed, and not when rolled back", async () => {
      const connection = await newConnection();
      await gateway.connections.findByToken(connection.tokenDigest);
      await expect(
        gateway.transaction(async (tx) => {
          await tx.connections.update(connection.id, { name: "renamed" });
          throw new Error("abandoned");
        }),
      ).rejects.toThrow("abandoned");
      expect((await gateway.connections.findByToken(connection.tokenDigest))?.name).toBe("Meta");
      await gateway.transaction(async (tx) => tx.connections.update(connection.id, { name: "renamed" }));
      expect((await gateway.connections.findByToken(connection.tokenDigest))?.name).toBe("renamed");
    });
  });
});
