import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stores } from "../../../src/gateway/storage/transaction.js";
import { BACKENDS, id, newCompany, newCredential, type Opened, vendorKeyRow } from "./backends.js";

/**
 * The vendor keys store's contract (docs/decisions.md, D-221, D-247): intake's cached `find` (a hit answered
 * synchronously; any process's change holds within a second), and the owner API's reads and writes, the same on SQLite
 * and PostgreSQL.
 */
describe.each(BACKENDS)("vendor keys store on $name", (backend) => {
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

    async function newKey(stores: Stores = gateway) {
      const company = await newCompany(stores);
      const credentialId = await newCredential(stores, company.id);
      const row = vendorKeyRow(company.id, credentialId);
      await stores.vendorKeys.insert(row);
      return row;
    }

    /** Two published lead versions of one profile, for binding. */
    async function twoVersions(companyId: string) {
      const profileId = id("prof");
      await gateway.profiles.insertProfile({
        id: profileId,
        companyId,
        name: id("p"),
        kind: "lead",
        description: null,
        createdAt: "2026-01-01T00:00:00.000Z",
      });
      const versions = [id("ver"), id("ver")];
      for (const [index, versionId] of versions.entries()) {
        await gateway.profiles.insertVersion({
          id: versionId,
          profileId,
          companyId,
          version: index + 1,
          expression: "$",
          samples: [],
          status: "published",
          samplesPassed: true,
          createdAt: "2026-01-01T00:00:00.000Z",
          publishedAt: "2026-01-01T00:00:00.000Z",
        });
      }
      return versions as [string, string];
    }

    describe("intake's find", () => {
      it("finds a key with its scopes as an array; an unknown one is not found", async () => {
        const key = await newKey();
        expect(await gateway.vendorKeys.find(key.id)).toEqual(key);
        expect(await gateway.vendorKeys.find("svc_test_unknown")).toBeUndefined();
      });

      it("answers a repeated lookup synchronously, the row frozen (shared by every request)", async () => {
        const key = await newKey();
        await gateway.vendorKeys.find(key.id);
        await expect
          .poll(() => {
            const found = gateway.vendorKeys.find(key.id);
            return found instanceof Promise ? "promise" : found?.id;
          })
          .toBe(key.id);
        const hit = gateway.vendorKeys.find(key.id);
        expect(hit).not.toBeInstanceOf(Promise);
        expect(Object.isFrozen(hit)).toBe(true);
      });

      it("this process's own revocation is refused from the very next lookup", async () => {
        const key = await newKey();
        await expect.poll(() => gateway.vendorKeys.find(key.id) instanceof Promise).toBe(false);
        await gateway.vendorKeys.update(key.id, { revokedAt: "2026-02-01T00:00:00.000Z" });
        expect((await gateway.vendorKeys.find(key.id))?.revokedAt).toBe("2026-02-01T00:00:00.000Z");
      });

      it("a revocation by another process is refused by this process's find within 1 s", async () => {
        const key = await newKey();
        // Positive control: found, valid, and answered from the cache (synchronously) before the revocation.
        await expect.poll(() => gateway.vendorKeys.find(key.id) instanceof Promise).toBe(false);
        expect((await gateway.vendorKeys.find(key.id))?.revokedAt).toBeNull();
        const revokedAt = Date.now();
        await other.vendorKeys.update(key.id, { revokedAt: "2026-02-01T00:00:00.000Z" });
        await expect
          .poll(async () => (await gateway.vendorKeys.find(key.id))?.revokedAt, { timeout: 1_000, interval: 20 })
          .toBe("2026-02-01T00:00:00.000Z");
        expect(Date.now() - revokedAt).toBeLessThan(1_000);
      });

      it("a revocation committed in another process's transaction is refused here within 1 s", async () => {
        const key = await newKey();
        await expect.poll(() => gateway.vendorKeys.find(key.id) instanceof Promise).toBe(false);
        await other.transaction(async (tx) => {
          await tx.vendorKeys.update(key.id, { revokedAt: "2026-02-01T00:00:00.000Z" });
        });
        await expect
          .poll(async () => (await gateway.vendorKeys.find(key.id))?.revokedAt, { timeout: 1_000, interval: 20 })
          .toBe("2026-02-01T00:00:00.000Z");
      });

      it("a key created by another process is found here at once (a miss is never cached)", async () => {
        const company = await newCompany(other);
        const credentialId = await newCredential(other, company.id);
        const row = vendorKeyRow(company.id, credentialId);
        expect(await gateway.vendorKeys.find(row.id)).toBeUndefined();
        await other.vendorKeys.insert(row);
        expect(await gateway.vendorKeys.find(row.id)).toEqual(row);
      });

      it("inside a transaction, find sees the transaction's own change; outside, nothing of a rollback stays", async () => {
        const key = await newKey();
        await expect.poll(() => gateway.vendorKeys.find(key.id) instanceof Promise).toBe(false);
        await expect(
          gateway.transaction(async (tx) => {
            await tx.vendorKeys.update(key.id, { name: "Renamed" });
            expect((await tx.vendorKeys.find(key.id))?.name).toBe("Renamed");
            throw new Error("abandoned");
          }),
        ).rejects.toThrow("abandoned");
        expect((await gateway.vendorKeys.find(key.id))?.name).toBe("Marketplace");
        expect((await gateway.vendorKeys.get(key.id))?.name).toBe("Marketplace");
      });

      it("a change committed in this process's transaction holds from the very next lookup", async () => {
        const key = await newKey();
        await expect.poll(() => gateway.vendorKeys.find(key.id) instanceof Promise).toBe(false);
        await gateway.transaction(async (tx) => {
          await tx.vendorKeys.update(key.id, { revokedAt: "2026-02-01T00:00:00.000Z" });
        });
        expect((await gateway.vendorKeys.find(key.id))?.revokedAt).toBe("2026-02-01T00:00:00.000Z");
      });
    });

    describe("the owner API", () => {
      it("get reads now, uncached: another process's change is seen at once", async () => {
        const key = await newKey();
        expect(await gateway.vendorKeys.get(key.id)).toEqual(key);
        await other.vendorKeys.update(key.id, {
          name: "Renamed",
          previousSecretDigest: "old",
          previousValidUntil: "x",
        });
        expect(await gateway.vendorKeys.get(key.id)).toEqual({
          ...key,
          name: "Renamed",
          previousSecretDigest: "old",
          previousValidUntil: "x",
        });
        expect(await gateway.vendorKeys.get("svc_test_unknown")).toBeUndefined();
      });

      it("reads a company's key, and never another company's", async () => {
        const key = await newKey();
        const stranger = await newCompany(gateway);
        expect(await gateway.vendorKeys.getOfCompany(key.id, key.companyId)).toEqual(key);
        expect(await gateway.vendorKeys.getOfCompany(key.id, stranger.id)).toBeUndefined();
      });

      it("lists a company's keys in the order they were issued, and no other company's", async () => {
        const company = await newCompany(gateway);
        const credentialId = await newCredential(gateway, company.id);
        const first = vendorKeyRow(company.id, credentialId, { createdAt: "2026-01-01T00:00:00.000Z" });
        const second = vendorKeyRow(company.id, credentialId, { createdAt: "2026-01-02T00:00:00.000Z" });
        await gateway.vendorKeys.insert(first);
        await gateway.vendorKeys.insert(second);
        await newKey();
        // An update does not move a key in the list.
        await gateway.vendorKeys.update(first.id, { name: "Renamed" });
        expect(await gateway.vendorKeys.listOfCompany(company.id)).toEqual([{ ...first, name: "Renamed" }, second]);
      });

      it("a key's company and credential must exist", async () => {
        const company = await newCompany(gateway);
        await expect(gateway.vendorKeys.insert(vendorKeyRow(company.id, "cred_none"))).rejects.toThrow();
      });

      it("finds the keys bound to versions, and rebinds them (a rollback)", async () => {
        const key = await newKey();
        const [v1, v2] = await twoVersions(key.companyId);
        await gateway.vendorKeys.update(key.id, { leadProfileVersionId: v2 });
        expect(await gateway.vendorKeys.boundTo("lead", [v1, v2])).toEqual([key.id]);
        expect(await gateway.vendorKeys.boundTo("appointment", [v1, v2])).toEqual([]);
        expect(await gateway.vendorKeys.boundTo("lead", [])).toEqual([]);
        await expect.poll(() => gateway.vendorKeys.find(key.id) instanceof Promise).toBe(false);
        await gateway.vendorKeys.rebind("lead", [key.id], v1);
        expect((await gateway.vendorKeys.find(key.id))?.leadProfileVersionId).toBe(v1);
        expect(await gateway.vendorKeys.boundTo("lead", [v2])).toEqual([]);
        await gateway.vendorKeys.rebind("lead", [], v2);
        expect((await gateway.vendorKeys.get(key.id))?.leadProfileVersionId).toBe(v1);
      });
    });
  });
});
